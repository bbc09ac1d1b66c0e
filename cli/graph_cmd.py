"""``irrun graph``: a picture of a model's graph (SVG, PNG or DOT), or an interactive page."""

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
    progress_option,
    refuse_overwrites,
    terminal_progress,
    weights_option,
)


def _picture_path(context, parameter, value):
    if value is not None and not value.strip():
        raise click.BadParameter("the path is empty; give the name of the picture to write")
    if value is not None and _format_of(value) is None:
        raise click.BadParameter(
            f"{value!r}: the extension gives the format; name the file .html, .svg, .png or .dot"
        )
    return value


#: Past this many layers an .svg or .png is refused without --force: Graphviz takes minutes
#: and the picture is too big to read; the page (.html) or --around suits such models.
PICTURE_LAYER_LIMIT = 300


@click.command("graph")
@model_argument
@weights_option
@click.option(
    "-o",
    "--output",
    "output_path",
    metavar="GRAPH.html|svg|png|dot",
    required=True,
    type=click.Path(dir_okay=False),
    callback=_picture_path,
    help="Write the picture here; the extension gives the format: .html for an interactive "
    "page (any size of model), .svg, .png, or .dot for Graphviz source.",
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
@click.option(
    "--force",
    is_flag=True,
    help=f"Draw an .svg or .png of more than {PICTURE_LAYER_LIMIT} layers anyway (slow, and "
    "hard to read: prefer .html or --around).",
)
@progress_option
@handle_errors
def graph_command(model, weights, output_path, around, radius, validate, engine, snippet, force,
                  no_progress):  # fmt: skip
    """Draw MODEL.xml's graph to GRAPH.html, GRAPH.svg, GRAPH.png or GRAPH.dot.

    GRAPH.html is an interactive page, one self-contained file that opens in
    any browser without a network: drag to pan, wheel to zoom, search layers
    by name, type or tensor name, click a layer to read its attributes, its
    ports (declared and inferred shapes and types, where each comes from and
    goes to) and its diagnostics. Layers with errors are red, with warnings
    orange; GRAPH.html#L12 opens at layer 12. The bodies of If, Loop and
    TensorIterator layers are views of their own, linked from the layer's panel
    (GRAPH.html#b2 opens the second). It suits models of thousands of layers.

    Each layer is a box with its name, its op and version (Gather-8) and the
    element type and shape of each output; each edge is labelled with the dims
    it carries. Layers are placed top to bottom by topological generation. A
    fragment's unconnected input and output ports are drawn as its inputs and
    outputs (1:in0, 1:out0).

    Pictures use Graphviz's dot program when it is on PATH (through the graphviz
    Python package), else matplotlib: pip install 'irrun[draw]'. A .dot or
    .html file needs neither. An .svg or .png of more than 300 layers is
    refused unless --force: write .html, or draw --around LAYER.

    Exits 0 when the picture is written, even if the model has problems (they
    are highlighted); 2 when the file cannot be read, the layer is unknown, the
    picture cannot be written, is too big without --force, or no drawing engine
    is installed; 3 when irrun failed while checking a layer (a bug in irrun;
    the picture is still written).
    """
    read = [("the model", model), ("the weights file", weights)]
    refuse_overwrites([("-o", output_path)], read)
    with terminal_progress(no_progress) as progress:
        _graph(model, weights, output_path, around, radius, validate, engine, snippet, force,
               progress)  # fmt: skip


def _graph(model, weights, output_path, around, radius, validate, engine, snippet, force,
           progress):  # fmt: skip
    """The command's work, reporting its stages (loading, validating, drawing) to ``progress``."""
    from irrun.api import validate as validate_model
    from irrun.progress import stage
    from irrun.render.draw import EngineMissingError, choose_engine, draw, layers_drawn

    with stage(f"loading {model}", progress):
        models = load_models(model, weights)
    loaded = models[0].weights
    if loaded is not None and loaded.path != "<bytes>":
        refuse_overwrites([("-o", output_path)], [("the weights file", loaded.path)])
    if snippet is None and len(models) > 1:
        _fail(f"{model} holds {len(models)} separate snippets; choose one with --snippet N")
    if snippet is not None and snippet > len(models):
        _fail(f"--snippet {snippet}: {model} holds {len(models)} snippet(s)")
    chosen = models[(snippet or 1) - 1]
    try:
        shown_layers = layers_drawn(chosen, around, radius)
    except KeyError as exc:  # the message lists close matches
        raise click.BadParameter(exc.args[0], param_hint="'--around'") from None
    picture_format = _format_of(output_path)
    if picture_format in ("svg", "png") and shown_layers > PICTURE_LAYER_LIMIT and not force:
        page = f"-o {os.path.splitext(output_path)[0]}.html"
        if around is None:
            what = f"{model} has {shown_layers:,} layers"
            other = "draw a part (--around LAYER)"
        else:
            what = f"--around {around} --radius {radius} reaches {shown_layers:,} layers"
            other = "give a smaller --radius"
        _fail(
            f"{what}, too many for a readable .{picture_format} (over {PICTURE_LAYER_LIMIT}, and "
            f"slow to draw); write the interactive page instead ({page}), {other}, or give "
            "--force to draw it all"
        )
    try:
        if picture_format not in ("dot", "html"):
            engine = choose_engine(engine)
    except EngineMissingError as exc:  # no drawing engine: say how to install one
        _fail(_engine_hint(exc))
    report = validate_model(chosen, progress=progress) if validate else None
    draw(chosen, output_path, report=report, around=around, radius=radius, engine=engine,
         format=picture_format, progress=progress)  # fmt: skip
    count = len(chosen.layers)
    shown = f"{count:,} layer{'s' * (count != 1)}" if around is None else f"around {around!r}"
    problems = f"; {report.summary()}" if report is not None and len(report) else ""
    drawn = "" if picture_format in ("dot", "html") else f", drawn with {engine}"
    click.echo(f"wrote {output_path} ({shown}{drawn}{problems})")
    internal = [d for d in report or () if d.code == "internal"]
    if internal:
        click.echo(f"irrun: error: {internal[0]} (a bug in irrun: please report it)", err=True)
        sys.exit(EXIT_INTERNAL)


def _engine_hint(error) -> str:
    """What is missing to draw the picture, in the command's spelling (the library's message
    speaks of ``engine='matplotlib'``)."""
    from irrun.render.draw import GRAPHVIZ_INSTALL

    if error.missing == "graphviz-package":
        return (
            f"--engine graphviz needs the graphviz Python package; install it with: {error.install}"
        )
    if error.missing == "dot-program":
        return (
            "--engine graphviz needs Graphviz's `dot` program, which is not on PATH; install "
            f"Graphviz ({GRAPHVIZ_INSTALL}), or use --engine matplotlib"
        )
    if error.missing == "matplotlib":
        return f"--engine matplotlib needs matplotlib; install it with: {error.install}"
    return (
        "drawing an .svg or .png needs Graphviz or matplotlib, and neither is installed; install "
        f"them with: {error.install} (Graphviz's `dot` program, e.g. apt-get install graphviz, "
        "gives the better layout). An .html page or a .dot file needs neither."
    )


def _format_of(path: str) -> str | None:
    """The picture format the file's extension names (``None`` if none does)."""
    from irrun.render.draw import FORMATS

    return FORMATS.get(os.path.splitext(path)[1].lower().lstrip("."))


def _fail(message: str):
    click.echo(f"irrun: error: {message}", err=True)
    sys.exit(EXIT_UNUSABLE)
