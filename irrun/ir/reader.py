"""Turning IR XML (a ``<net>`` document or bare ``<layer>`` snippets) into a :class:`Model`.

The reader is deliberately lenient about the *graph* (duplicate ids, edges to
missing ports, cycles, wrong declared dims): it keeps everything with its line
so that validation can report every problem at once. It raises only for what
makes the file unreadable as IR: malformed XML, a wrong root or version, ids
and dims that are not integers, unknown precisions or element types.

The work is split by job: :mod:`irrun.ir.xml` and :mod:`irrun.ir.pieces` parse,
:mod:`irrun.ir.document` checks the root and version, :mod:`irrun.ir.layers` reads layers
(with :mod:`irrun.ir.ports` and :mod:`irrun.ir.edges`), :mod:`irrun.ir.lines` gives true line
numbers past 65,535, :mod:`irrun.ir.model_io` names inputs and outputs, and
:mod:`irrun.ir.weights` reads the ``.bin``. :mod:`irrun.ir.accelerator` loads the optional
native reader of plainly written layers (``IRRUN_NO_ACCELERATOR=1`` turns it off).
"""

from __future__ import annotations

import os

from irrun.errors import FragmentError, InputFileError, IRError
from irrun.gc_pause import call_paused
from irrun.ir import constants
from irrun.ir.accelerator import load_accelerator
from irrun.ir.document import check_fragment, net_version
from irrun.ir.files import read_regular_file
from irrun.ir.layers import ReadState, build_layer, layer_id, layer_record, read_graph
from irrun.ir.lines import line_of
from irrun.ir.model_io import name_model_io
from irrun.ir.pieces import PieceFailed
from irrun.ir.rt_info import read_model_rt_info
from irrun.ir.weights import Weights
from irrun.ir.xml import parse_document, parse_in_pieces
from irrun.model import Model

__all__ = ["load", "load_all"]

#: The accelerator module each load reads with (``None``: pure Python), and why it is not used
#: when it is not. Set once here; tests set ``_walk`` to ``None`` to read in pure Python.
_walk, ACCELERATOR_STATUS = load_accelerator()


def load(source, weights=None) -> Model:
    """Load an OpenVINO IR model, or a fragment of bare ``<layer>`` snippets.

    Parameters
    ----------
    source : str, os.PathLike or bytes
        Path of an ``.xml`` file, or the XML itself (a ``str`` starting with
        ``<``, or ``bytes``).
    weights : str, os.PathLike or bytes, optional
        The weights: a ``.bin`` path, or its bytes. By default the ``.bin``
        beside the XML (same name) is used when it exists; a model without
        Consts needs none.

    Returns
    -------
    Model

    Raises
    ------
    irrun.IRError
        A subclass saying what is wrong and where: ``InputFileError``,
        ``XMLSyntaxError``, ``IRFormatError``, ``FragmentError``...

    Examples
    --------
    >>> import irrun
    >>> model = irrun.load('<layer id="1" type="Concat"><data axis="0"/>'
    ...                    '<input><port id="0"><dim>2</dim></port><port id="1"><dim>3</dim>'
    ...                    '</port></input><output><port id="2"><dim>5</dim></port></output>'
    ...                    '</layer>')
    >>> [i.name for i in model.inputs], model.outputs[0].shape
    (['1:in0', '1:in1'], Shape('[5]'))
    """
    models = load_all(source, weights)
    if len(models) > 1:
        lines = ", ".join(str(m.layers[0].line) for m in models)
        raise FragmentError(
            f"the file holds {len(models)} separate <layer> snippets (at lines {lines}) whose "
            "ids repeat; load them one by one with irrun.load_all()",
            file=models[0].file,
        )
    return models[0]


def load_all(source, weights=None) -> list[Model]:
    """Like :func:`load`, but a fragment file of several independent snippets
    (layers whose ids repeat, as in the OpenVINO op specification) gives one
    :class:`Model` per snippet instead of an error. A ``<net>`` gives a list of one."""
    data, file, directory_hint = _read_source(source)
    return call_paused(_read_all, data, file, directory_hint, weights)


def _read_all(data, file, directory_hint, weights) -> list[Model]:
    # One state per attempt: a failed reading in pieces leaves nothing to the next one.
    split = parse_in_pieces(data, file)
    if split is not None:
        state = ReadState(file, _walk)
        model = _read_net_in_pieces(*split, state, weights, directory_hint)
        if model is not None:
            return [model]
    root, is_fragment = parse_document(data, file)
    blob = _open_weights(weights, directory_hint)
    state = ReadState(file, _walk)
    if is_fragment:
        return _read_fragments(root, state, blob)
    return [_read_net(root, state, blob)]


# -- sources -----------------------------------------------------------------------------------
def _read_source(source):
    if isinstance(source, bytes):
        return source, "<bytes>", None
    if isinstance(source, str) and source.lstrip().startswith("<"):
        return source.encode("utf-8"), "<string>", None
    if not isinstance(source, (str, os.PathLike)):
        raise InputFileError(f"cannot load {type(source).__name__}: give a path or XML text")
    path = os.fspath(source)
    return read_regular_file(path, "model"), path, path


def _open_weights(weights, model_path):
    if isinstance(weights, (bytes, bytearray, memoryview)):
        return Weights.from_bytes(bytes(weights))
    if weights is not None:
        return Weights(os.fspath(weights))
    if model_path is None:
        return None
    candidate = os.path.splitext(model_path)[0] + ".bin"
    if not os.path.lexists(candidate):
        return None
    return Weights(candidate)


# -- documents ---------------------------------------------------------------------------------
def _read_net_in_pieces(root, pieces, state, weights, directory_hint) -> Model | None:
    """Read a net whose ``<layers>`` and rest arrive in pieces; ``None`` when a piece is not
    well-formed (the caller then parses the whole document and reports that)."""
    try:
        model = _read_net(root, state, None, pieces)
    except (PieceFailed, IRError):
        # The whole-document parse reports it: a syntax error anywhere comes first, and
        # every line is the file's.
        return None
    finally:
        pieces.close()
    # Only now is the whole document known to be well-formed: weights problems come after
    # syntax errors, as when the document is parsed whole.
    model.weights = _open_weights(weights, directory_hint)
    return model


def _read_net(root, state: ReadState, blob, pieces=None) -> Model:
    version = net_version(root, state.file)
    model = Model(state.file, root.get("name", ""), version, False, blob, constants)
    read_graph(model, root, state, fragment=False, pieces=pieces)
    rt_info = (root if pieces is None else pieces.rest()).find("rt_info")
    if rt_info is not None:
        model.rt_info = read_model_rt_info(rt_info)
    name_model_io(model)
    return model


def _read_fragments(root, state: ReadState, blob) -> list[Model]:
    """One model for a fragment whose layer ids are unique, else one per ``<layer>``."""
    file = state.file
    check_fragment(root, file)
    elements = [child for child in root if child.tag == "layer"]
    edges = [child for child in root if child.tag in ("edge", "edges")]
    ids = [layer_id(element, file) for element in elements]
    name = os.path.basename(file)
    if len(set(ids)) == len(ids):
        model = Model(file, name, None, True, blob, constants)
        read_graph(model, root, state, fragment=True)
        name_model_io(model)
        return [model]
    if edges:
        raise FragmentError(
            "the fragment repeats layer ids and has <edge> elements, so its edges are "
            "ambiguous; give every layer a unique id",
            file=file,
            line=line_of(edges[0]),
        )
    models = []
    for element in elements:
        model = Model(file, name, None, True, blob, constants)
        record = layer_record(element, file, True, 0)
        model.layers.append(build_layer(model, record, state, True))
        model._index()
        name_model_io(model)
        models.append(model)
    return models
