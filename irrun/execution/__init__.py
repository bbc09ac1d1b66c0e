"""Running a model: compiled once, then each run a flat loop over the layers' kernels.

:func:`compile` validates the model (a model with errors is refused), builds each op,
folds the constant sub-graphs and lays out a schedule (:mod:`irrun.execution.engine`);
:func:`run` and :func:`steps` use the compiled form cached on the model, so repeated runs
neither validate nor build anything again (``validate=True`` asks for both on that run).
The inputs are checked on every run (no silent casting), each produced array is checked
against the inferred shape and element type, and every intermediate is freed after its last
consumer. Const values stay read-only views of the memory-mapped weights.

Without inputs, a run draws seeded random ones (:func:`random_inputs`).

Examples
--------
>>> import numpy as np, irrun
>>> model = irrun.load('<layer id="1" name="cat" type="Concat" version="opset1">'
...     '<data axis="0"/><input><port id="0" precision="FP32"><dim>2</dim></port>'
...     '<port id="1" precision="FP32"><dim>1</dim></port></input>'
...     '<output><port id="2" precision="FP32"><dim>3</dim></port></output></layer>')
>>> compiled = model.compile()
>>> inputs = {"cat:in0": np.ones(2, np.float32), "cat:in1": np.zeros(1, np.float32)}
>>> compiled.run(inputs)["cat:out2"].tolist()
[1.0, 1.0, 0.0]
>>> compiled.run(inputs)["cat:out2"].tolist(), compiled.validations, compiled.builds
([1.0, 1.0, 0.0], 1, 1)
"""

from __future__ import annotations

from collections.abc import Iterator

from irrun.execution.engine import (
    NOT_FOLDED,
    CompiledModel,
    NotRun,
    Results,
    State,
    Step,
    tensor_name,
)
from irrun.execution.inputs import DEFAULT_DIM, DEFAULT_INTEGER_RANGE, random_inputs

__all__ = [
    "run",
    "steps",
    "compile",
    "CompiledModel",
    "Step",
    "Results",
    "NotRun",
    "State",
    "tensor_name",
    "random_inputs",
    "DEFAULT_DIM",
    "DEFAULT_INTEGER_RANGE",
    "NOT_FOLDED",
]


def compile(model, *, fold_constants: bool = True, validate: bool = False) -> CompiledModel:  # noqa: A001
    """The compiled form of ``model``, made once and cached on the model.

    Parameters
    ----------
    model : irrun.Model
    fold_constants : bool
        Compute the layers fed only by constants once and keep their values (f16/INT8/INT4
        weight decompression done once; :attr:`CompiledModel.folded_bytes` counts the memory).
        ``False`` keeps that lazy: done again on each run, no memory kept.
    validate : bool
        Compile anew (validate and build again) even if a compiled form is cached.

    Returns
    -------
    CompiledModel

    Raises
    ------
    ValidationFailed
        The model has validation errors (listed in the message and ``.report``).
    """
    cache = model.__dict__.setdefault("_compiled_forms", {})
    key = (fold_constants, _fingerprint(model))
    compiled = cache.get(key)
    if compiled is None or validate:
        cache.clear()  # an edited model's older forms are of no use
        # The variables of ReadValue/Assign belong to the model: compiling anew keeps them.
        state = model.__dict__.setdefault("_execution_state", State())
        compiled = cache[key] = CompiledModel(model, fold_constants=fold_constants, state=state)
    return compiled


def _fingerprint(model) -> tuple:
    """What changes when a model is edited in place (layers or edges added or removed,
    weights replaced): a cached compiled form then no longer applies."""
    return (len(model.layers), len(model.edges), id(model.weights), len(model.inputs),
            len(model.outputs))  # fmt: skip


def run(model, inputs=None, *, capture=False, stop_after=None, on_step=None, partial=False,
        bridge=None, threads=None, validate=False, fold_constants=True, seed=0, shapes=None,
        progress=None, out=None) -> Results:  # fmt: skip
    """Run ``model`` on ``inputs`` and return its outputs.

    Parameters
    ----------
    model : irrun.Model
    inputs : dict or str, optional
        Input arrays keyed by Parameter name or any of its tensor names, or the path of an
        ``.npz`` holding them (read by :func:`irrun.arrays.load_npz`). ``None``: seeded
        random inputs (:func:`random_inputs` with ``seed`` and ``shapes``).
    capture : bool
        Also return every intermediate tensor, keyed by tensor name.
    stop_after : str, optional
        Stop after this layer (name or id); its outputs are returned, keyed by tensor name,
        together with any model outputs already computed. Only the layers it depends on need
        kernels.
    on_step : callable, optional
        Called with a :class:`Step` after each layer (tracing, stepping).
    partial : bool
        Run every layer whose inputs can be computed instead of refusing a model with layers
        irrun has no kernel for; the others are listed in ``Results.not_run``.
    bridge : dict, optional
        ``{layer id: [arrays]}``: outputs to use for those layers instead of computing them
        (e.g. OpenVINO's, for layers irrun has no kernel for); listed in ``Results.bridged``.
    threads : int, optional
        BLAS threads for this run (see :func:`irrun.execution.threads.blas_threads`);
        ``None`` leaves NumPy's setting (all cores by default).
    validate : bool
        Validate and build the ops again for this run (the compiled form is otherwise made
        once per model and reused).
    fold_constants : bool
        See :func:`compile`.
    seed, shapes
        For random inputs: the seed, and ``{input name: shape}`` for dynamic dims.
    progress : callable, optional
        Called as ``progress(done, total)`` about a hundred times during the run.
    out : dict, optional
        ``{output name: numpy array}``: preallocated arrays, each of its output's shape and
        dtype, that the outputs are written into (the layer producing an output writes it
        there directly when its kernel can, else it is copied there); the results hold those
        very arrays. Outputs not named are allocated as usual.

    Returns
    -------
    Results
        Output arrays keyed by the outputs' OpenVINO names (plus every tensor when
        ``capture``).

    Raises
    ------
    ValidationFailed
        The model has validation errors (listed in the message and ``.report``).
    UnsupportedOpError
        The model has layers irrun has no kernel for (all listed), and the run needs them.
    InputValueError
        Inputs missing, unknown, or of the wrong shape or dtype; an ``out`` array for an
        unknown output, read-only, or of another shape or dtype than its output (the message
        names the output and gives both).
    WeightsError
        The weights file was truncated or rewritten since the model was loaded.
    ExecutionError
        An op failed (e.g. an out-of-range index where the op leaves it undefined).
    InternalError
        A kernel produced an array of another shape or type than validation inferred (a bug
        in irrun).
    """
    compiled = compile(model, fold_constants=fold_constants, validate=validate)
    if inputs is None:
        inputs = random_inputs(model, seed=seed, shapes=shapes)
    return compiled.run(inputs, capture=capture, stop_after=stop_after, on_step=on_step,
                        partial=partial, bridge=bridge, threads=threads,
                        progress=progress, out=out)  # fmt: skip


def steps(model, inputs=None, *, stop_after=None, partial=False, bridge=None, validate=False,
          seed=0, shapes=None) -> Iterator[Step]:  # fmt: skip
    """Execute ``model`` one layer at a time, yielding a :class:`Step` per layer.

    The same checks as :func:`run` happen before the first step. Intermediates are freed after
    their last consumer, so keep what you need from each step. A layer irrun has no kernel for
    ends the walk with :class:`~irrun.errors.UnsupportedOpError` when it is reached
    (``partial``: it is skipped, with every layer that needs it).

    Examples
    --------
    >>> import numpy as np, irrun
    >>> model = irrun.load('<layer id="1" name="cat" type="Concat" version="opset1">'
    ...     '<data axis="0"/><input><port id="0" precision="FP32"><dim>2</dim></port>'
    ...     '<port id="1" precision="FP32"><dim>3</dim></port></input>'
    ...     '<output><port id="2" precision="FP32"><dim>5</dim></port></output></layer>')
    >>> inputs = {"cat:in0": np.ones(2, np.float32), "cat:in1": np.zeros(3, np.float32)}
    >>> for step in model.steps(inputs):
    ...     print(step.layer.name, [a.tolist() for a in step.outputs])
    cat [[1.0, 1.0, 0.0, 0.0, 0.0]]
    """
    compiled = compile(model, validate=validate)
    if inputs is None:
        inputs = random_inputs(model, seed=seed, shapes=shapes)
    return compiled.steps(inputs, stop_after=stop_after, partial=partial, bridge=bridge)
