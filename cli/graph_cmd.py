"""``irrun graph``: a picture of a model's graph (SVG, PNG or DOT)."""

from __future__ import annotations

import os
import sys

import click
from irrun.cli.common import (
    EXIT_INTERNAL,
    EXIT_UNUSABLE,
    handle_errors,
    load_models,
    model_argument,
    refuse_overwrites,
    weights_option,
)


def _picture_path(context, parameter, value):
    if value is not None and not value.strip():
        raise click.BadParameter("the path is empty; give the name of the picture to write")
    if value is not None and _format_of(value) is None:
        raise click.BadParameter(
            f"{value!r}: the extension gives the format; name the file .svg, .png or .dot"
        )
    return value


@click.command("graph")
@model_argument
@weights_option
@click.option(
    "-o",
    "--output",
    "output_path",
    metavar="GRAPH.svg|png|dot",
    required=True,
    type=click.Path(dir_okay=False),
    callback=_picture_path,
    help="Write the picture here; the extension gives the format (.svg, .png, or .dot for "
    "Graphviz source).",
)
@click.option(
    "--around",
    metavar="LAYER",
    help="Draw only the layers within --radius edges of LAYER (name or id), for big models.",
)
@click.option(
    "--radius",
    type=click.IntRange(min=0),
    default=2,
    show_default=True,
    help="How many edges --around reaches, in either direction.",
)
@click.option(
    "--validate/--no-validate",
    default=True,
    show_default=True,
    help="Validate first: boxes show inferred shapes, and layers with errors are filled red, "
    "with warnings orange. --no-validate draws the declared shapes.",
)
@click.option(
    "--engine",
    type=click.Choice(["auto", "graphviz", "matplotlib"]),
    default="auto",
    show_default=True,
    help="Layout engine for .svg and .png: Graphviz's dot program when it is installed "
    "(auto), else matplotlib.",
)
@click.option(
    "--snippet",
    type=click.IntRange(min=1),
    metavar="N",
    help="When MODEL.xml holds several independent snippets, draw the Nth (from 1).",
)
@handle_errors
def graph_command(model, weights, output_path, around, radius, validate, engine, snippet):
    """Draw MODEL.xml's graph to GRAPH.svg, GRAPH.png or GRAPH.dot.

    Each layer is a box with its name, its op and version (Gather-8) and the
    element type and shape of each output; each edge is labelled with the dims
    it carries. Layers are placed top to bottom by topological generation. A
    fragment's unconnected input and output ports are drawn as its inputs and
    outputs (1:in0, 1:out0).

    Pictures use Graphviz's dot program when it is on PATH (through the graphviz
    Python package), else matplotlib: pip install 'irrun[draw]'. A .dot file
    needs neither. For a model of many hundreds of layers, prefer .svg, or
    --around LAYER for the part you are looking at.

    Exits 0 when the picture is written, even if the model has problems (they
    are highlighted); 2 when the file cannot be read, the layer is unknown, the
    picture cannot be written or no drawing engine is installed; 3 when irrun
    failed while checking a layer (a bug in irrun; the picture is still written).
    """
    from irrun.api import validate as validate_model
    from irrun.render.draw import choose_engine, draw

    read = [("the model", model), ("the weights file", weights)]
    refuse_overwrites([("-o", output_path)], read)
    models = load_models(model, weights)
    loaded = models[0].weights
    if loaded is not None and loaded.path != "<bytes>":
        refuse_overwrites([("-o", output_path)], [("the weights file", loaded.path)])
    if snippet is None and len(models) > 1:
        _fail(f"{model} holds {len(models)} separate snippets; choose one with --snippet N")
    if snippet is not None and snippet > len(models):
        _fail(f"--snippet {snippet}: {model} holds {len(models)} snippet(s)")
    chosen = models[(snippet or 1) - 1]
    if around is not None:
        try:
            chosen.layer(around)
        except KeyError as exc:  # the message lists close matches
            raise click.BadParameter(exc.args[0], param_hint="'--around'") from None
    report = validate_model(chosen) if validate else None
    picture_format = _format_of(output_path)
    try:
        if picture_format != "dot":
            engine = choose_engine(engine)
    except ImportError as exc:  # no drawing engine: say how to install one
        _fail(str(exc))
    draw(chosen, output_path, report=report, around=around, radius=radius, engine=engine,
         format=picture_format)  # fmt: skip
    count = len(chosen.layers)
    shown = f"{count} layer{'s' * (count != 1)}" if around is None else f"around {around!r}"
    problems = f"; {report.summary()}" if report is not None and len(report) else ""
    drawn = "" if picture_format == "dot" else f", drawn with {engine}"
    click.echo(f"wrote {output_path} ({shown}{drawn}{problems})")
    internal = [d for d in report or () if d.code == "internal"]
    if internal:
        click.echo(f"irrun: error: {internal[0]} (a bug in irrun: please report it)", err=True)
        sys.exit(EXIT_INTERNAL)


def _format_of(path: str) -> str | None:
    """The picture format the file's extension names (``None`` if none does)."""
    from irrun.render.draw import FORMATS

    return FORMATS.get(os.path.splitext(path)[1].lower().lstrip("."))


def _fail(message: str):
    click.echo(f"irrun: error: {message}", err=True)
    sys.exit(EXIT_UNUSABLE)
