"""``irrun execute``: run a model on inputs from an .npz, or on seeded random inputs."""

from __future__ import annotations

import os
import sys
import time

import click
from irrun.cli.common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    handle_errors,
    load_models,
    model_argument,
    refuse_overwrites,
    weights_option,
)


def parse_shapes(values) -> dict:
    """``("x=1,3,224,224", ...)`` as ``{"x": [1, 3, 224, 224]}`` (a usage error otherwise)."""
    shapes = {}
    for text in values:
        name, equals, sizes = text.rpartition("=")
        try:
            dims = [int(size) for size in sizes.split(",")] if sizes.strip() else []
        except ValueError:
            dims = None
        if not equals or not name or dims is None:
            raise click.BadParameter(
                f"{text!r} is not NAME=SIZES (write it as x=1,3,224,224)", param_hint="--shape"
            )
        shapes[name] = dims
    return shapes


optional_inputs_option = click.option(
    "--inputs",
    "inputs_path",
    metavar="DATA.npz",
    type=click.Path(dir_okay=True),
    help="Input arrays in an .npz, keyed by Parameter name or tensor name. bf16 inputs are "
    "given as float32 holding exactly representable values. Without it, seeded random "
    "inputs of each input's type and shape are used (see --seed, --shape).",
)
seed_option = click.option(
    "--seed", type=int, default=0, show_default=True, help="Seed of the random inputs."
)
shape_option = click.option(
    "--shape",
    "shape_texts",
    metavar="NAME=SIZES",
    multiple=True,
    help="Shape of a random input with dynamic dims, e.g. --shape x=1,3,224,224 (repeatable). "
    "Dynamic dims not given take their lower bound; without one, 1 for the batch and elsewhere "
    "the smallest of 1, 2, 4, ... 128, 224, 240, 256, 288, 299, 320, 384, 448, 512 that the "
    "model's shape rules accept (when no one size fits, an open channel dim first takes its "
    "own: [?,?,?,?] gives [1,3,...]; when nothing fits, 1, and a note asks for --shape).",
)
save_inputs_option = click.option(
    "--save-inputs",
    metavar="OUT.npz",
    type=click.Path(dir_okay=True),
    help="Write the random inputs to this new .npz (an existing file is never replaced).",
)
threads_option = click.option(
    "--threads",
    type=click.IntRange(min=1),
    help="BLAS threads for the run (default: NumPy's setting, all cores).",
)


def resolve_inputs(model, inputs_path, seed, shape_texts, save_inputs_path):
    """The inputs to run on: the .npz given, or random ones (saved when asked)."""
    if inputs_path is not None:
        if shape_texts or save_inputs_path:
            raise click.UsageError("--shape and --save-inputs apply to random inputs, not --inputs")
        return inputs_path
    from irrun.execution.inputs import choose_inputs, save_inputs

    shapes = parse_shapes(shape_texts)
    inputs, unfitted = choose_inputs(model, seed=seed, shapes=shapes)
    if save_inputs_path is not None:
        save_inputs(save_inputs_path, inputs)
    _note_chosen_shapes(model, inputs, shapes, unfitted)
    return inputs


def _note_chosen_shapes(model, inputs, shapes, unfitted=()) -> None:
    """Say on stderr which shape each random input with dynamic dims got (the user did not),
    and when no size irrun tries fits the model."""
    given = {id(model.input(name)) for name in shapes}  # (names checked by random_inputs)
    for model_input in model.inputs:
        if model_input.shape.is_static or id(model_input) in given:
            continue
        array = inputs[model_input.name]
        name = model_input.name
        if name in unfitted:
            click.echo(
                f"irrun: note: random input {name!r} {model_input.shape} is {array.dtype} "
                f"{list(array.shape)}: no size irrun tries for its dynamic dims (1, 2, 4 ... 512 "
                "for all of them, 1 to 16 one at a time) fits the model's shape rules, so the "
                f"run will likely fail; give its shape with --shape {name}=...",
                err=True,
            )
            continue
        click.echo(
            f"irrun: note: random input {name!r} {model_input.shape} is "
            f"{array.dtype} {list(array.shape)} (the sizes irrun chose for its dynamic dims; "
            f"--shape {name}=... gives others)",
            err=True,
        )


@click.command("execute")
@model_argument
@weights_option
@optional_inputs_option
@seed_option
@shape_option
@save_inputs_option
@click.option(
    "--output",
    "output_path",
    metavar="OUT.npz",
    type=click.Path(dir_okay=True),
    help="Write the outputs to this .npz (keyed by output name) instead of printing them.",
)
@click.option(
    "--trace", is_flag=True, help="Print a line per layer: name, type, shape, dtype, bytes, time."
)
@click.option(
    "--dump",
    metavar="OUT.npz",
    type=click.Path(dir_okay=True),
    help="Write every intermediate tensor, keyed by tensor name, to this .npz.",
)
@click.option(
    "--stop-after",
    metavar="LAYER",
    help="Stop after this layer (name or id) and report its outputs; only the layers it "
    "depends on need kernels.",
)
@click.option(
    "--partial",
    is_flag=True,
    help="Run every layer whose inputs can be computed, even if some layers have no kernel, "
    "and list those that could not run (exit 1 when there are any).",
)
@threads_option
@click.option(
    "--no-progress",
    is_flag=True,
    help="No progress bar (it is shown only on a terminal, for runs that take a while).",
)
@handle_errors
def execute_command(model, weights, inputs_path, seed, shape_texts, save_inputs, output_path,
                    trace, dump, stop_after, partial, threads, no_progress):  # fmt: skip
    """Run MODEL.xml with irrun's NumPy kernels, on the inputs in DATA.npz or on seeded
    random inputs.

    The model is validated first; a model with errors is not run (exit 1).
    Outputs are keyed by OpenVINO's output names. Without --output, each
    output's name, shape, dtype and first values are printed.

    Random inputs (no --inputs): floats standard normal, booleans even,
    integers in [0, N) when they index a Gather table of N rows, in [1, S] when
    they are the sequence lengths of a sequence of S steps, else in [0, 10);
    dynamic dims from --shape, else their lower bound, else 1 for the batch and
    the smallest size the model's shape rules accept elsewhere (a converted
    CNN's [?,3,?,?] image gets the smallest size its kernels and strides take;
    an open channel dim, [?,?,?,?], takes its own size first: 3; when no size
    fits, 1, and a note on stderr asks for --shape).
    """
    import numpy as np

    from irrun.api import run
    from irrun.arrays import save_npz

    written = [("--output", output_path), ("--dump", dump), ("--save-inputs", save_inputs)]
    read = [("the model", model), ("the weights file", weights), ("the inputs file", inputs_path)]
    refuse_overwrites(written, read)
    models = load_models(model, weights)
    loaded = models[0].weights
    if loaded is not None and loaded.path != "<bytes>":  # the .bin found beside the model
        refuse_overwrites(written, [("the weights file", loaded.path)])
    if len(models) > 1:
        from irrun.errors import FragmentError

        raise FragmentError(
            f"{model} holds {len(models)} separate snippets; execute runs one graph",
            file=model,
        )
    inputs = resolve_inputs(models[0], inputs_path, seed, shape_texts, save_inputs)

    def print_step(step):
        for array in step.outputs or [None]:
            shape = list(array.shape) if array is not None else "-"
            dtype = str(array.dtype) if array is not None else "-"
            size = array.nbytes if array is not None else 0
            click.echo(
                f"{step.layer.name or step.layer.id:<24} {step.layer.type:<15} "
                f"{str(shape):<20} {dtype:<10} {size:>10,} B  {step.seconds * 1e3:8.3f} ms",
                err=True,
            )

    bar = None if no_progress or trace else ProgressBar.on_terminal()
    try:
        results = run(
            models[0],
            inputs,
            capture=dump is not None,
            stop_after=stop_after,
            on_step=print_step if trace else None,
            partial=partial,
            threads=threads,
            progress=bar,
        )
    finally:
        if bar is not None:
            bar.close()
    outputs = {o.name: results[o.name] for o in models[0].outputs if o.name in results}
    if stop_after is not None or not outputs:
        outputs = results
    if dump is not None:
        save_npz(dump, results)
    not_run = list(results.not_run)
    if not_run:
        click.echo(f"irrun: {len(not_run)} layer(s) could not run:", err=True)
        for entry in not_run:
            click.echo(f"  {models[0].file}:{entry.layer.line}: {entry.layer.describe()}: "
                       f"{entry.reason}", err=True)  # fmt: skip
    if output_path is not None:
        save_npz(output_path, outputs)
        click.echo(f"wrote {len(outputs)} output(s) to {output_path}")
        sys.exit(EXIT_PROBLEMS if not_run else EXIT_OK)
    with np.printoptions(threshold=20, edgeitems=3, linewidth=100):
        for name, array in outputs.items():
            click.echo(f"{name}: {array.dtype} {list(array.shape)}")
            click.echo("  " + np.array2string(array).replace(os.linesep, os.linesep + "  "))
    if not_run:
        sys.exit(EXIT_PROBLEMS)


class ProgressBar:
    """A one-line progress bar on standard error, drawn only on a terminal and only once a
    run has taken :attr:`DELAY` seconds: a ``progress`` callback for :func:`irrun.run`
    (``bar(done, total)``)."""

    #: Runs shorter than this finish before a bar is worth drawing (seconds).
    DELAY = 0.3
    WIDTH = 30

    def __init__(self, stream, clock=time.monotonic):
        self.stream = stream
        self.clock = clock
        self.started = clock()
        self.drawn = False

    @classmethod
    def on_terminal(cls, stream=None, clock=time.monotonic):
        """A bar when ``stream`` (standard error) is a terminal; else ``None`` (silent when
        piped)."""
        stream = stream if stream is not None else sys.stderr
        isatty = getattr(stream, "isatty", None)
        if isatty is None or not isatty():
            return None
        return cls(stream, clock)

    def __call__(self, done: int, total: int) -> None:
        if not self.drawn and self.clock() - self.started < self.DELAY:
            return
        filled = self.WIDTH * done // max(total, 1)
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        self.stream.write(f"\rrunning [{bar}] {done}/{total} layers")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        """Erase the bar (the outputs follow on a clean line)."""
        if self.drawn:
            self.stream.write("\r" + " " * (self.WIDTH + 40) + "\r")
            self.stream.flush()
