"""The Python API in one place: load, validate, run, steps, compare, draw.

Each function takes the model first, and each is also a method of the model:
``model.validate()`` is ``validate(model)``, ``model.run(inputs)`` is ``run(model, inputs)``.
The data classes of :mod:`irrun.model` know nothing of the walks, so this module, which sits
above validation, execution, comparison and rendering, adds these functions to
:class:`~irrun.model.Model` (and the HTML reprs to it and to :class:`~irrun.model.Layer`) when
it is imported. :func:`irrun.load` and the other public names of :mod:`irrun` come from here,
so a model loaded through them always has its methods.

The walks are imported when a function is first called: importing this module costs no more
than importing :mod:`irrun.model`.
"""

from __future__ import annotations

from irrun.model import Edge, Layer, Model, Port

__all__ = [
    "load",
    "load_all",
    "validate",
    "run",
    "compile",
    "reset_state",
    "random_inputs",
    "steps",
    "compare",
    "draw",
    "Model",
    "Layer",
    "Port",
    "Edge",
]


def load(source, weights=None) -> Model:
    """Load an OpenVINO IR model, or a fragment of bare ``<layer>`` snippets.

    See :func:`irrun.ir.reader.load` for the parameters and errors.
    """
    from irrun.ir.reader import load

    return load(source, weights)


def load_all(source, weights=None) -> list[Model]:
    """Like :func:`load`, but a fragment of several independent snippets gives one model per
    snippet; see :func:`irrun.ir.reader.load_all`."""
    from irrun.ir.reader import load_all

    return load_all(source, weights)


def validate(model, *, progress=None):
    """Check the model and return a :class:`~irrun.validation.Report` (see
    :func:`irrun.validation.validate`); afterwards ports carry ``inferred_shape``.
    ``progress(stage, done, total)`` is called as the layers are checked (see
    :mod:`irrun.progress`)."""
    from irrun.validation import validate

    model.check_weights()
    return validate(model, progress=progress)


def run(model, inputs=None, *, capture=False, stop_after=None, on_step=None, partial=False,
        bridge=None, threads=None, validate=False, seed=0, shapes=None,
        progress=None, out=None) -> dict:  # fmt: skip
    """Run the model on ``inputs`` (dict or ``.npz`` path; ``None``: seeded random inputs),
    through its compiled form (made once, cached); see :func:`irrun.execution.run`.
    ``out={output name: array}`` writes those outputs into the given preallocated arrays
    (of the outputs' shapes and dtypes) and returns them."""
    from irrun.execution import run

    return run(model, inputs, capture=capture, stop_after=stop_after, on_step=on_step,
               partial=partial, bridge=bridge, threads=threads, validate=validate, seed=seed,
               shapes=shapes, progress=progress, out=out)  # fmt: skip


def compile(model, *, fold_constants=True, validate=False):  # noqa: A001
    """The compiled form of the model (validated once, ops built once, constants folded),
    cached on the model; see :func:`irrun.execution.compile`."""
    from irrun.execution import compile

    return compile(model, fold_constants=fold_constants, validate=validate)


def reset_state(model) -> None:
    """Forget the variables (ReadValue/Assign) kept between runs of the model."""
    from irrun.execution import compile

    compile(model).reset_state()


def random_inputs(model, *, seed=0, shapes=None) -> dict:
    """Seeded random inputs of each input's type and shape; see
    :func:`irrun.execution.random_inputs`."""
    from irrun.execution import random_inputs

    return random_inputs(model, seed=seed, shapes=shapes)


def steps(model, inputs=None, *, stop_after=None, partial=False, bridge=None):
    """Execute one layer at a time, yielding :class:`~irrun.execution.Step` objects."""
    from irrun.execution import steps

    return steps(model, inputs, stop_after=stop_after, partial=partial, bridge=bridge)


def compare(model, inputs=None, *, device="CPU", rtol=None, seed=0, shapes=None,
            memory_limit=None):  # fmt: skip
    """Run with irrun and with OpenVINO and compare every tensor (needs the ``openvino``
    extra); without ``inputs``, on seeded random ones (``seed``, ``shapes``); a model whose
    tensors take more than ``memory_limit`` bytes is compared in parts. See
    :func:`irrun.compare.compare`."""
    from irrun.compare import compare

    return compare(model, inputs, device=device, rtol=rtol, seed=seed, shapes=shapes,
                   memory_limit=memory_limit)  # fmt: skip


def draw(model, path=None, *, format=None, report=None, around=None, radius=2):
    """A picture of the graph (SVG text by default); see :func:`irrun.render.draw.draw`.

    ``report`` (e.g. ``model.validate()``) highlights problem layers; ``around`` and
    ``radius`` draw only the neighbourhood of one layer.
    """
    from irrun.render.draw import draw

    return draw(model, path, format=format, report=report, around=around, radius=radius)


def _model_html(model) -> str:
    from irrun.render.html import model_html

    return model_html(model)


def _layer_html(layer) -> str:
    from irrun.render.html import layer_html

    return layer_html(layer)


def _add_methods():
    """Make the functions above methods of the data classes (once: this module runs once)."""
    for function in (validate, run, compile, reset_state, random_inputs, steps, compare, draw):
        setattr(Model, function.__name__, function)
    Model._repr_html_ = _model_html
    Layer._repr_html_ = _layer_html


_add_methods()
