"""``irrun compare``: run a model with irrun and with OpenVINO and compare every tensor."""

from __future__ import annotations

import json
import sys

import click
from irrun.cli.common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_UNUSABLE,
    format_option,
    handle_errors,
    load_models,
    model_argument,
    refuse_overwrites,
    weights_option,
)
from irrun.cli.execute_cmd import (
    optional_inputs_option,
    resolve_inputs,
    save_inputs_option,
    seed_option,
    shape_option,
)


def _number_or_none(value):
    """``--rtol``'s value; NaN (which FloatRange lets through) is refused."""
    if value is not None and value != value:
        raise click.BadParameter("nan is not a tolerance; give a number >= 0")
    return value


@click.command("compare")
@model_argument
@weights_option
@optional_inputs_option
@seed_option
@shape_option
@save_inputs_option
@click.option("--rtol", type=click.FloatRange(min=0), default=None, metavar="FLOAT",
              callback=lambda context, parameter, value: _number_or_none(value),
              help="Rounding tolerance for float results of ops that round, relative to the "
                   "largest |value| of OpenVINO's tensor; 0 compares bit for bit.  [default: "
                   "f32 1e-4, f16 1e-2, bf16 6e-2, f64 1e-10]")  # fmt: skip
@click.option("--memory-limit", "memory_limit", type=click.IntRange(min=1), default=None,
              metavar="MIB",
              help="About how many MiB of tensors to hold at once; when the model's take more, "
                   "the layers are compared a part at a time (OpenVINO runs once per part).  "
                   "[default: a sixth of the memory available besides the weights]")  # fmt: skip
@format_option
@handle_errors
def compare_command(model, weights, inputs_path, seed, shape_texts, save_inputs, rtol,
                    memory_limit, output_format):  # fmt: skip
    """Run MODEL.xml with irrun and with OpenVINO's CPU plugin on the inputs in DATA.npz and
    compare every layer output.

    OpenVINO reads the same files; every output of every layer (Parameters,
    Constants and Results aside) becomes a model output, and tensors are
    matched by layer name and output index, bit for bit (NaN payloads
    count, and -0.0 differs from 0.0). Each port's inferred shape and
    element type is also compared with OpenVINO's.

    Float results of ops that round (sums in another order, approximated
    functions: Convolution, MatMul, Exp, ... but not data movement) may
    differ from OpenVINO's by rounding: within --rtol of the largest
    |value| of OpenVINO's tensor they are "within rounding", not a
    disagreement. A layer whose inputs already differ is run again on
    OpenVINO's own inputs, so that a divergence is found where it starts,
    even behind rounding.

    One line per tensor, FILE:LINE: LAYER output port N: VERDICT, where
    VERDICT is one of:

    \b
      match
      within rounding (HOW): the numbers, and the difference relative
               to the largest |value|
      DIFFERS: N of M elements differ, first at [i,j]: both values;
               max abs diff, max ULP (floats)
      DIFFERS on OpenVINO's own inputs: the same, from the run again
      DIFFERS downstream of LAYER: an input already differed
      known CPU deviation: WHAT: OpenVINO's CPU plugin departs from the
               spec here (Gather-1/-7 negative indices, Gather-8 out-of-range
               indices on 1-D integer data, i64/u64 beyond int32, f64, Gather
               batch_dims on a single batch, GatherND with empty index tuples,
               f16 signalling NaNs, f32 Const subnormals, FakeQuantize one
               level apart, f16 weight decompression done in f32, TopK ties
               in another order)
      not compared: WHY

    then a summary line naming the first divergence. --format json gives
    the same as an object (schema irrun.compare/4).

    A layer irrun has no kernel for is bridged: OpenVINO's outputs of it are
    fed to the layers after it, which are compared as usual; the report
    names the bridged layers. Without --inputs, seeded random inputs are
    used (as for execute).

    Every tensor of both runs is held until it is judged. When irrun's
    tensors together take more than --memory-limit, the layers are compared
    a part at a time: OpenVINO runs once per part, returning only that
    part's tensors and those they are computed from, and irrun runs again
    keeping the same; the verdicts are those of a comparison at once, and
    the summary says how many parts it took.

    Needs the optional openvino package: pip install 'irrun[openvino]'.
    OpenVINO runs in a child process, so a crash of its plugin is reported
    rather than ending irrun.

    Exits 0 when every tensor matches or differs only by rounding or
    through a known CPU deviation, 1 when irrun and OpenVINO disagree otherwise (values,
    shapes or element types; irrun or OpenVINO failing on the model counts
    too), 2 when openvino is not installed or the model or inputs cannot
    be used.
    """
    from irrun.compare import OpenVINONotInstalled, compare, require_openvino

    try:
        require_openvino()
    except OpenVINONotInstalled as exc:
        click.echo(f"irrun: error: {exc}", err=True)
        sys.exit(EXIT_UNUSABLE)
    refuse_overwrites([("--save-inputs", save_inputs)],
                      [("the model", model), ("the weights file", weights)])  # fmt: skip
    models = load_models(model, weights)
    if len(models) > 1:
        from irrun.errors import FragmentError

        raise FragmentError(
            f"{model} holds {len(models)} separate snippets; compare runs one full IR model",
            file=model,
        )
    try:
        inputs = resolve_inputs(models[0], inputs_path, seed, shape_texts, save_inputs)
        limit = None if memory_limit is None else memory_limit << 20
        comparison = compare(models[0], inputs, rtol=rtol, memory_limit=limit)
    except OpenVINONotInstalled as exc:
        click.echo(f"irrun: error: {exc}", err=True)
        sys.exit(EXIT_UNUSABLE)
    if output_format == "json":
        click.echo(json.dumps(comparison.to_dict(), indent=2))
    else:
        click.echo(comparison.to_text())
    sys.exit(EXIT_OK if comparison.ok else EXIT_PROBLEMS)
