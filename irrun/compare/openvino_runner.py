"""Running a model with OpenVINO (optional), in this process or in a child process."""

from __future__ import annotations

import os
import sys

import numpy as np

from irrun.compare.common import INSTALL_COMMAND, OpenVINONotInstalled


def require_openvino() -> None:
    """Raise :class:`OpenVINONotInstalled` (with the install command) unless OpenVINO is there."""
    import importlib.util

    try:
        found = importlib.util.find_spec("openvino") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise OpenVINONotInstalled(
            "comparing with OpenVINO needs the optional openvino package; install it with: "
            f"{INSTALL_COMMAND}"
        )


def _dims(partial_shape):
    if partial_shape.rank.is_dynamic:
        return None
    return [(d.get_min_length(), d.get_max_length()) for d in partial_shape]


def run_openvino(request: dict) -> dict:
    """Read, expose every layer output, compile and run a model with OpenVINO, in this process.

    ``request`` holds ``xml``, ``weights`` (or ``None``), ``device``, ``config`` and ``feeds``
    (``{Parameter name: (element type name, shape, raw bytes or list of str)}``), and
    optionally ``body``: ``[(friendly name, body index), ...]``, the path to a sub-graph
    op's body (index 0 an If's then_body, 1 its else_body), which is then run alone, fed
    by its Parameters' names, and optionally ``expose``: the ``(friendly name, output
    index)`` keys of the only layer outputs to return (``None`` or absent: every one; a
    comparison in several passes asks for a part at a time). Returns the
    OpenVINO version, every node's output shapes and types after ``read_model`` (keyed
    ``(friendly name, output index)``), the friendly names seen, and every output tensor as
    ``(key, element type name, shape, raw bytes or list of str)``.
    """
    import openvino as ov

    core = ov.Core()
    if request["weights"]:
        ov_model = core.read_model(request["xml"], request["weights"])
    else:
        ov_model = core.read_model(request["xml"])
    for name, index in request.get("body", ()):
        found = [n for n in ov_model.get_ordered_ops() if n.get_friendly_name() == name]
        if len(found) != 1:
            raise RuntimeError(f"OpenVINO's model has {len(found)} layers named {name!r}")
        ov_model = found[0].get_function(index)
    ports, names, exposed = {}, [], []
    wanted = request.get("expose")
    wanted = None if wanted is None else set(wanted)
    for node in ov_model.get_ordered_ops():
        name = node.get_friendly_name()
        names.append(name)
        for index, output in enumerate(node.outputs()):
            ports[(name, index)] = (
                _dims(output.get_partial_shape()),
                output.get_element_type().get_type_name(),
            )
        # (an Assign's output is its input, exposed where it is made; the CPU plugin refuses
        # a Result on it: "Incorrect output port number for node Assign")
        if node.get_type_name() not in ("Result", "Parameter", "Constant", "Assign"):
            exposed.extend(output for index, output in enumerate(node.outputs())
                           if wanted is None or (name, index) in wanted)  # fmt: skip
    if exposed:
        ov_model.add_outputs(exposed)
    keys = []
    for result in ov_model.get_results():
        source = result.input_value(0)
        keys.append((source.get_node().get_friendly_name(), source.get_index()))
    compiled = core.compile_model(ov_model, request["device"], request["config"])
    infer_request = compiled.create_infer_request()
    for index, parameter in enumerate(ov_model.get_parameters()):
        name = parameter.get_friendly_name()
        if name not in request["feeds"]:
            raise RuntimeError(f"irrun has no input for OpenVINO's Parameter {name!r}")
        type_name, shape, payload = request["feeds"][name]
        if type_name == "string":
            tensor = ov.Tensor(np.array(payload, dtype=str).reshape(shape))
        else:
            tensor = ov.Tensor(parameter.get_element_type(), ov.Shape(list(shape)))
            target = tensor.data.reshape(-1).view(np.uint8)
            target[:] = np.frombuffer(payload, np.uint8, count=target.size)
        infer_request.set_input_tensor(index, tensor)
    infer_request.infer()
    outputs = []
    for index, key in enumerate(keys):
        tensor = infer_request.get_output_tensor(index)
        type_name = tensor.get_element_type().get_type_name()
        if type_name == "string":
            payload = [str(s) for s in np.asarray(tensor.str_data).reshape(-1)]
        else:
            raw = np.ascontiguousarray(tensor.data).reshape(-1).view(np.uint8)
            payload = raw[: tensor.get_byte_size()].tobytes()
        outputs.append((key, type_name, tuple(tensor.get_shape()), payload))
    return {"version": ov.get_version(), "ports": ports, "names": names, "outputs": outputs}


def _worker_main(request_path: str, response_path: str) -> None:
    """Child-process entry: run :func:`run_openvino` on a pickled request, pickle the answer."""
    import pickle

    with open(request_path, "rb") as stream:
        request = pickle.load(stream)
    try:
        response = ("ok", run_openvino(request))
    except ImportError as exc:
        response = ("import", str(exc))
    except Exception as exc:  # OpenVINO reports everything as RuntimeError and friends
        response = ("error", f"{type(exc).__name__}: {exc}")
    with open(response_path, "wb") as stream:
        pickle.dump(response, stream, protocol=pickle.HIGHEST_PROTOCOL)


def _run_isolated(request: dict) -> dict:
    """:func:`run_openvino` in a child process, so that a crash of OpenVINO cannot take the
    caller down. The request and answer travel as pickles in a private temporary folder that
    only this function writes."""
    import pickle
    import signal
    import subprocess
    import tempfile

    import irrun

    package_root = os.path.dirname(os.path.dirname(os.path.abspath(irrun.__file__)))
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [package_root, *filter(None, [environment.get("PYTHONPATH")])]
    )
    with tempfile.TemporaryDirectory(prefix="irrun-compare-") as folder:
        request_path = os.path.join(folder, "request.pickle")
        response_path = os.path.join(folder, "response.pickle")
        with open(request_path, "wb") as stream:
            pickle.dump(request, stream, protocol=pickle.HIGHEST_PROTOCOL)
        code = (
            "import sys; from irrun.compare.openvino_runner import _worker_main; "
            "_worker_main(*sys.argv[1:])"
        )
        completed = subprocess.run(
            [sys.executable, "-c", code, request_path, response_path],
            capture_output=True,
            text=True,
            env=environment,
        )
        if not os.path.exists(response_path):
            if completed.returncode < 0:
                try:
                    how = f"killed by {signal.Signals(-completed.returncode).name}"
                except ValueError:
                    how = f"killed by signal {-completed.returncode}"
            else:
                how = f"exit status {completed.returncode}"
            detail = completed.stderr.strip().splitlines()[-3:]
            return {"crashed": how, "stderr": "\n".join(detail)}
        with open(response_path, "rb") as stream:
            status, payload = pickle.load(stream)
    if status == "import":
        raise OpenVINONotInstalled(
            f"openvino cannot be imported ({payload}); install it with: {INSTALL_COMMAND}"
        )
    if status == "error":
        return {"error": payload}
    return payload


def _openvino_feeds(model, feeds: dict) -> dict:
    """irrun's matched inputs as the raw bytes OpenVINO's tensors hold, by Parameter name."""
    from irrun.errors import InputValueError

    result = {}
    for model_input in model.inputs:
        array = feeds[id(model_input.port)]
        etype = model_input.element_type
        name = model_input.layer.name
        if etype is not None and etype.name == "string":
            result[name] = ("string", array.shape, [str(s) for s in array.reshape(-1)])
            continue
        if etype is not None and etype.is_sub_byte:
            raise InputValueError(
                f"input {model_input.name!r} is {etype}: irrun compare cannot hand sub-byte "
                "inputs to OpenVINO yet",
                file=model.file,
            )
        raw = np.ascontiguousarray(array).reshape(-1).view(np.uint8).tobytes()
        result[name] = (etype.name if etype is not None else "", array.shape, raw)
    return result


def _decode_output(type_name: str, shape, payload) -> np.ndarray:
    """An OpenVINO output tensor in irrun's representation (sub-byte types unpacked)."""
    from irrun.element_types import element_type
    from irrun.ir.weights import Weights, decode_const

    if type_name == "string":
        return np.array(payload, dtype=np.dtypes.StringDType()).reshape(shape)
    return decode_const(
        element_type(type_name), tuple(shape), 0, len(payload), Weights.from_bytes(payload)
    )


def _shape_text(dims) -> str:
    """OpenVINO's partial shape (``[(min, max)]``, ``None`` for dynamic rank) as irrun prints it."""
    from irrun.shape import Dim, Shape

    if dims is None:
        return str(Shape.dynamic_rank())
    converted = []
    for lower, upper in dims:
        unbounded = upper < 0 or upper >= 2**63 - 1
        converted.append(Dim(max(lower, 0), None if unbounded else upper))
    return str(Shape(converted))
