"""``irrun execute``: run a model on inputs from an .npz."""

from __future__ import annotations

import os
import sys

import click
from irrun.cli.common import (
    EXIT_OK,
    handle_errors,
    inputs_option,
    load_models,
    model_argument,
    refuse_overwrites,
    weights_option,
)


@click.command("execute")
@model_argument
@weights_option
@inputs_option(
    "Input arrays in an .npz, keyed by Parameter name or tensor name. "
    "bf16 inputs are given as float32 holding exactly representable values."
)
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
    help="Stop after this layer (name or id) and report its outputs.",
)
@handle_errors
def execute_command(model, weights, inputs_path, output_path, trace, dump, stop_after):
    """Run MODEL.xml on the inputs in DATA.npz with irrun's NumPy kernels.

    The model is validated first; a model with errors is not run (exit 1).
    Outputs are keyed by OpenVINO's output names. Without --output, each
    output's name, shape, dtype and first values are printed.
    """
    import numpy as np

    from irrun.api import run
    from irrun.arrays import save_npz

    written = [("--output", output_path), ("--dump", dump)]
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

    results = run(
        models[0],
        inputs_path,
        capture=dump is not None,
        stop_after=stop_after,
        on_step=print_step if trace else None,
    )
    outputs = {o.name: results[o.name] for o in models[0].outputs if o.name in results}
    if stop_after is not None or not outputs:
        outputs = results
    if dump is not None:
        save_npz(dump, results)
    if output_path is not None:
        save_npz(output_path, outputs)
        click.echo(f"wrote {len(outputs)} output(s) to {output_path}")
        sys.exit(EXIT_OK)
    with np.printoptions(threshold=20, edgeitems=3, linewidth=100):
        for name, array in outputs.items():
            click.echo(f"{name}: {array.dtype} {list(array.shape)}")
            click.echo("  " + np.array2string(array).replace(os.linesep, os.linesep + "  "))
