"""Build small real architectures with random weights and write them as OpenVINO IR.

The output, committed under ``tests/real_models/``, gives the test suite graphs that the
OpenVINO model converter really emits (not hand-written XML): for each model three IRs,

* ``<model>_static_f32``  static input shapes, weights kept in f32;
* ``<model>_static_f16``  static input shapes, weights compressed to f16 (the
  ``save_model`` default), so the graph has f16 Constants followed by Convert;
* ``<model>_dynamic_f32`` dynamic batch (CNNs) or dynamic sequence length (transformers).

Some models have other variants (``MODEL_VARIANTS``):

* ``<model>_int8`` / ``<model>_int4``  weights compressed by NNCF (``nncf.compress_weights``,
  INT8 asymmetric per channel; INT4 asymmetric in groups of 16): u8/u4 Consts with zero points
  and scales, decompressed by Convert, Subtract and Multiply;
* ``<model>_fq``  post-training quantised by NNCF (``nncf.quantize`` on a small random
  calibration set): FakeQuantize layers on activations and weights;
* ``<model>_stateful_f32``  a KV-cache LLM made stateful (ReadValue/Assign), run for several
  steps (``steps`` in its manifest entry; inputs and outputs keyed ``step<N>.<name>``).

The detector (SSDlite, with If and NonMaxSuppression), the segmentation model (LR-ASPP, with
Interpolate) and the encoder-decoder (T5) sit beside the models above.

Each IR folder holds ``model.xml``, ``model.bin``, ``inputs.npz`` (keyed by the IR input
names) and ``expected.npz`` (OpenVINO CPU outputs at f32 inference precision, keyed by the
IR output names). The dynamic variants are fed the same concrete shapes as the static ones.
``manifest.json`` lists every IR with its shapes and a histogram of layer types and opsets.

Nothing is downloaded: every model is built from a config with seeded random weights.

Needs (heavy, deliberately not project dependencies; use a throw-away venv)::

    VENV=$(mktemp -d)/realenv       # any throw-away folder outside the work tree
    python -m venv --system-site-packages "$VENV"
    "$VENV"/bin/pip install torch torchvision transformers timm nncf "numpy==<the project's numpy>"
    # pip must leave the project's openvino and numpy as they are (check `pip list`)

Run from the repository root::

    "$VENV"/bin/python scripts/make_real_models.py [--out tests/real_models]
    "$VENV"/bin/python scripts/make_real_models.py --only bert_tiny gpt2_tiny

Reruns with the same package versions give the same weights, inputs and outputs.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import shutil
import warnings
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "tests" / "real_models"
SEED = 20260
SEQ_LEN = 16
IMAGE = (1, 3, 64, 64)
VOCAB = 1000


@dataclass
class Spec:
    """One model: a torch module in eval mode and its example inputs, in forward order."""

    name: str
    description: str
    kind: str  # "cnn": dynamic batch; "seq": dynamic sequence length
    module: object
    inputs: dict[str, np.ndarray]
    notes: list[str] = field(default_factory=list)
    #: A stateful model's later steps (inputs of each run after the first, same names).
    steps: list[dict[str, np.ndarray]] = field(default_factory=list)
    #: The converted model's output names, in order (the converter leaves some unnamed).
    output_names: list[str] = field(default_factory=list)


def _seed(offset: int) -> np.random.Generator:
    import torch

    torch.manual_seed(SEED + offset)
    return np.random.default_rng(SEED + offset)


def _randomize_batchnorm(module, rng: np.random.Generator) -> None:
    """Give BatchNorm layers non-trivial statistics, so eval-mode BN is not an identity."""
    import torch

    for layer in module.modules():
        if isinstance(layer, torch.nn.modules.batchnorm._BatchNorm):
            n = layer.num_features
            with torch.no_grad():
                layer.running_mean.copy_(torch.from_numpy(rng.normal(0, 0.1, n).astype("f4")))
                layer.running_var.copy_(torch.from_numpy(rng.uniform(0.5, 1.5, n).astype("f4")))
                if layer.weight is not None:
                    layer.weight.copy_(torch.from_numpy(rng.uniform(0.5, 1.5, n).astype("f4")))
                    layer.bias.copy_(torch.from_numpy(rng.normal(0, 0.1, n).astype("f4")))


def _image(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": rng.standard_normal(IMAGE, dtype=np.float32)}


def _tokens(rng: np.random.Generator, names: list[str]) -> dict[str, np.ndarray]:
    values = {
        "input_ids": rng.integers(0, VOCAB, (1, SEQ_LEN), dtype=np.int64),
        "attention_mask": np.ones((1, SEQ_LEN), dtype=np.int64),
        "decoder_input_ids": rng.integers(0, VOCAB, (1, SEQ_LEN // 2), dtype=np.int64),
        "token_type_ids": np.concatenate(
            [np.zeros((1, SEQ_LEN // 2), np.int64), np.ones((1, SEQ_LEN - SEQ_LEN // 2), np.int64)],
            axis=1,
        ),
    }
    return {name: values[name] for name in names}


def build_resnet() -> Spec:
    from timm.models.resnet import BasicBlock, ResNet

    rng = _seed(1)
    module = ResNet(
        BasicBlock,
        [1, 1, 1, 1],
        channels=(8, 16, 32, 64),
        stem_width=8,
        num_classes=10,
        zero_init_last=False,
    )
    _randomize_batchnorm(module, rng)
    return Spec(
        "resnet_tiny",
        "timm ResNet with BasicBlock, layers [1,1,1,1], channels 8-16-32-64, stem 8, "
        "10 classes (ResNet-18 layout at 1/8 width, one block per stage); input 1x3x64x64",
        "cnn",
        module.eval(),
        _image(rng),
    )


def build_mobilenet() -> Spec:
    from torchvision.models import mobilenet_v3_small

    rng = _seed(2)
    module = mobilenet_v3_small(weights=None, width_mult=0.5, num_classes=10)
    _randomize_batchnorm(module, rng)
    # torchvision draws the classifier from N(0, 0.01), which leaves logits around 1e-3.
    import torch

    with torch.no_grad():
        for layer in module.classifier:
            if isinstance(layer, torch.nn.Linear):
                layer.weight.normal_(0, layer.in_features**-0.5)
    return Spec(
        "mobilenet_v3_small",
        "torchvision mobilenet_v3_small(width_mult=0.5, num_classes=10): depthwise convs, "
        "squeeze-excitation, HardSwish/HardSigmoid; input 1x3x64x64",
        "cnn",
        module.eval(),
        _image(rng),
    )


def build_vit() -> Spec:
    from timm.models.vision_transformer import VisionTransformer

    rng = _seed(3)
    module = VisionTransformer(
        img_size=32, patch_size=8, embed_dim=64, depth=2, num_heads=2, num_classes=10
    )
    # The default init leaves the position embedding and class token near zero; make them count.
    import torch

    with torch.no_grad():
        module.pos_embed.normal_(0, 0.5)
        module.cls_token.normal_(0, 0.5)
    return Spec(
        "vit_tiny",
        "timm VisionTransformer img 32, patch 8, dim 64, depth 2, 2 heads, 10 classes "
        "(timm's fused attention); input 1x3x32x32",
        "cnn",
        module.eval(),
        {"x": rng.standard_normal((1, 3, 32, 32), dtype=np.float32)},
    )


def build_bert() -> Spec:
    from transformers import BertConfig, BertModel

    rng = _seed(4)
    config = BertConfig(
        hidden_size=64,
        num_attention_heads=2,
        intermediate_size=128,
        num_hidden_layers=2,
        vocab_size=VOCAB,
        max_position_embeddings=64,
        attn_implementation="sdpa",
    )
    module = BertModel(config)
    return Spec(
        "bert_tiny",
        "transformers BertModel, 2 layers, hidden 64, 2 heads, intermediate 128, vocab 1000, "
        "SDPA attention; outputs last_hidden_state and pooler_output",
        "seq",
        module.eval(),
        _tokens(rng, ["input_ids", "attention_mask", "token_type_ids"]),
    )


def build_gpt2() -> Spec:
    from transformers import GPT2Config, GPT2LMHeadModel

    rng = _seed(5)
    config = GPT2Config(
        n_embd=64,
        n_head=2,
        n_layer=2,
        n_positions=64,
        vocab_size=VOCAB,
        use_cache=False,
        attn_implementation="eager",
    )
    module = GPT2LMHeadModel(config)
    return Spec(
        "gpt2_tiny",
        "transformers GPT2LMHeadModel, 2 layers, dim 64, 2 heads, vocab 1000, no KV cache, "
        "eager attention in PyTorch (the converter still fuses it into ScaledDotProductAttention); "
        "output logits",
        "seq",
        module.eval(),
        _tokens(rng, ["input_ids", "attention_mask"]),
    )


def build_llama() -> Spec:
    from transformers import LlamaConfig, LlamaForCausalLM

    rng = _seed(6)
    config = LlamaConfig(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
        vocab_size=VOCAB,
        use_cache=False,
        attn_implementation="sdpa",
    )
    module = LlamaForCausalLM(config)
    return Spec(
        "llama_tiny",
        "transformers LlamaForCausalLM, 2 layers, dim 64, 4 query / 2 key-value heads (GQA), "
        "intermediate 128, vocab 1000, RoPE, RMSNorm, SwiGLU, SDPA attention, no KV cache; "
        "output logits",
        "seq",
        module.eval(),
        _tokens(rng, ["input_ids", "attention_mask"]),
    )


def build_ssdlite() -> Spec:
    import torch
    from torchvision.models.detection import ssdlite320_mobilenet_v3_large

    rng = _seed(7)
    detector = ssdlite320_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=3, width_mult=0.25
    )
    _randomize_batchnorm(detector, rng)
    detector.transform.min_size, detector.transform.max_size = (128,), 128
    # Every candidate passes the score threshold, so how many boxes come out does not hang on
    # a score a rounding away from it: the sizes are those of the top-k and NMS steps.
    detector.score_thresh = -1.0
    detector.topk_candidates = 20
    detector.detections_per_img = 10

    class Detections(torch.nn.Module):
        """The detector on a batch of one image, its one result as a tuple of tensors."""

        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            found = self.inner([x[0]])[0]
            return found["boxes"], found["scores"], found["labels"]

    return Spec(
        "ssdlite_tiny",
        "torchvision ssdlite320_mobilenet_v3_large(width_mult=0.25, num_classes=3) at 128x128, "
        "score threshold below every score, 20 candidates a class, 10 detections: resize "
        "(Interpolate), anchors, box decoding, an If around batched NonMaxSuppression; input "
        "1x3x128x128 in [0, 1]",
        "det",
        Detections(detector).eval(),
        {"x": rng.uniform(0, 1, (1, 3, 128, 128)).astype(np.float32)},
        output_names=["boxes", "scores", "labels"],
    )


def build_lraspp() -> Spec:
    import torch
    from torchvision.models import mobilenet_v3_small
    from torchvision.models.segmentation.lraspp import _lraspp_mobilenetv3

    rng = _seed(8)
    segmenter = _lraspp_mobilenetv3(mobilenet_v3_small(weights=None, width_mult=0.5), 4)
    _randomize_batchnorm(segmenter, rng)

    class Segmentation(torch.nn.Module):
        """LR-ASPP's ``out`` map alone."""

        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return self.inner(x)["out"]

    return Spec(
        "lraspp_tiny",
        "torchvision LR-ASPP segmentation head on mobilenet_v3_small(width_mult=0.5), 4 "
        "classes: bilinear Interpolate back to the input size; input 1x3x64x64",
        "cnn",
        Segmentation(segmenter).eval(),
        _image(rng),
        output_names=["out"],
    )


def build_t5() -> Spec:
    from transformers import T5Config, T5ForConditionalGeneration

    rng = _seed(9)
    config = T5Config(
        d_model=32,
        d_kv=8,
        d_ff=64,
        num_layers=2,
        num_decoder_layers=2,
        num_heads=4,
        vocab_size=VOCAB,
        relative_attention_num_buckets=8,
        decoder_start_token_id=0,
        use_cache=False,
    )
    module = T5ForConditionalGeneration(config)
    return Spec(
        "t5_tiny",
        "transformers T5ForConditionalGeneration, 2 encoder and 2 decoder layers, d_model 32, "
        "4 heads, vocab 1000, relative position buckets: encoder-decoder with cross-attention; "
        "inputs input_ids and attention_mask (16 tokens), decoder_input_ids (8)",
        "seq",
        module.eval(),
        _tokens(rng, ["input_ids", "attention_mask", "decoder_input_ids"]),
    )


#: KV-cache LLM: key/value heads, head size and layers of build_llama_kv.
KV_HEADS, HEAD_SIZE, KV_LAYERS = 2, 16, 2


def build_llama_kv() -> Spec:
    import torch
    from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

    rng = _seed(10)
    config = LlamaConfig(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=KV_LAYERS,
        num_attention_heads=4,
        num_key_value_heads=KV_HEADS,
        max_position_embeddings=64,
        vocab_size=VOCAB,
        use_cache=True,
        attn_implementation="sdpa",
    )
    llm = LlamaForCausalLM(config)

    class WithCache(torch.nn.Module):
        """One decoding step: the tokens, their mask and positions, and the past keys and
        values of each layer in; the logits and the grown keys and values out."""

        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, position_ids, past_0_key, past_0_value,
                    past_1_key, past_1_value):  # fmt: skip
            cache = DynamicCache(config=config)
            past = (past_0_key, past_0_value, past_1_key, past_1_value)
            for layer, key, value in zip(cache.layers, past[0::2], past[1::2], strict=True):
                # Filled directly: DynamicLayer.update would concatenate onto an empty 1-D
                # tensor, which the converter cannot follow.
                layer.device, layer.dtype = key.device, key.dtype
                layer.keys, layer.values, layer.is_initialized = key, value, True
            found = self.inner(input_ids=input_ids, attention_mask=attention_mask,
                               position_ids=position_ids, past_key_values=cache,
                               use_cache=True)  # fmt: skip
            grown = found.past_key_values.layers
            return (found.logits, *[t for layer in grown for t in (layer.keys, layer.values)])

    past = 3
    example = {
        "input_ids": rng.integers(0, VOCAB, (1, 2), dtype=np.int64),
        "attention_mask": np.ones((1, past + 2), np.int64),
        "position_ids": np.arange(past, past + 2, dtype=np.int64)[None],
    }
    for index in range(KV_LAYERS):
        for kind in ("key", "value"):
            example[f"past_{index}_{kind}"] = rng.standard_normal(
                (1, KV_HEADS, past, HEAD_SIZE), dtype=np.float32
            )
    steps, position = [], 0
    for count in (5, 1, 1):  # a prompt of five tokens, then two generated ones
        steps.append({
            "input_ids": rng.integers(0, VOCAB, (1, count), dtype=np.int64),
            "attention_mask": np.ones((1, position + count), np.int64),
            "position_ids": np.arange(position, position + count, dtype=np.int64)[None],
        })  # fmt: skip
        position += count
    names = ["logits"] + [f"present.{i}.{k}" for i in range(KV_LAYERS) for k in ("key", "value")]
    return Spec(
        "llama_kv_tiny",
        "transformers LlamaForCausalLM as llama_tiny but with a KV cache (2 layers, 2 key-value "
        "heads of 16), converted with the cache as inputs and outputs and made stateful "
        "(ReadValue/Assign, each state starting empty from the batch size): a prompt of 5 "
        "tokens, then 2 steps of 1",
        "stateful",
        WithCache(llm).eval(),
        example,
        steps=steps,
        output_names=names,
    )


BUILDERS: dict[str, Callable[[], Spec]] = {
    "resnet_tiny": build_resnet,
    "mobilenet_v3_small": build_mobilenet,
    "vit_tiny": build_vit,
    "bert_tiny": build_bert,
    "gpt2_tiny": build_gpt2,
    "llama_tiny": build_llama,
    "ssdlite_tiny": build_ssdlite,
    "lraspp_tiny": build_lraspp,
    "t5_tiny": build_t5,
    "llama_kv_tiny": build_llama_kv,
}

#: The variants each model is saved in (see VARIANTS).
BASIC = ("static_f32", "static_f16", "dynamic_f32")
MODEL_VARIANTS: dict[str, tuple[str, ...]] = {
    "resnet_tiny": BASIC,
    "mobilenet_v3_small": (*BASIC, "int8", "int4", "fq"),
    "vit_tiny": BASIC,
    "bert_tiny": BASIC,
    "gpt2_tiny": BASIC,
    "llama_tiny": (*BASIC, "int8", "int4", "fq"),
    "ssdlite_tiny": ("static_f32", "static_f16"),
    "lraspp_tiny": BASIC,
    "t5_tiny": ("static_f32", "dynamic_f32"),
    "llama_kv_tiny": ("stateful_f32",),
}


def _convert(spec: Spec, dynamic: bool):
    import openvino as ov
    import torch

    example = {name: torch.from_numpy(value) for name, value in spec.inputs.items()}
    shapes = []
    for value in spec.inputs.values():
        dims = list(value.shape)
        if spec.kind == "stateful":  # sequence and past lengths vary from step to step
            dims = [dims[0], -1] if value.ndim == 2 else [dims[0], dims[1], -1, dims[3]]
        elif dynamic:
            dims[0 if spec.kind == "cnn" else 1] = -1
        shapes.append(ov.PartialShape(dims))
    if spec.kind in ("cnn", "det"):
        (tensor,) = example.values()
        model = ov.convert_model(spec.module, example_input=tensor, input=shapes)
    else:
        model = ov.convert_model(spec.module, example_input=example, input=shapes)
    # Name the single CNN input like the dict key; the converter calls it after forward's arg.
    if spec.kind in ("cnn", "det"):
        model.inputs[0].get_tensor().set_names(set(spec.inputs))
    if spec.kind == "stateful":
        for port, name in zip(model.inputs, spec.inputs):
            port.get_tensor().set_names({name})
    # Keep only meaningful output names (drop the tracer's numeric debug names such as "316"),
    # so get_any_name() gives "last_hidden_state" rather than a number. A CNN's single output
    # has only a numeric name and is called "logits".
    for index, output in enumerate(model.outputs):
        if spec.output_names:
            output.get_tensor().set_names({spec.output_names[index]})
            continue
        names = output.get_names()
        kept = {name for name in names if not name.isdigit()}
        if not kept:
            kept = {"logits" if len(model.outputs) == 1 else f"output_{index}"}
        output.get_tensor().set_names(kept)
    if spec.kind == "stateful":
        _make_stateful(model)
    return model


def _make_stateful(model) -> None:
    """Turn the past/present key-value inputs and outputs into states, as OpenVINO's
    ``MakeStateful`` does, each starting as an empty cache of the batch's size (a ReadValue
    whose initial value is zeros of ``[batch, heads, 0, head size]``)."""
    import openvino.opset13 as ops
    from openvino._offline_transformations import apply_make_stateful_transformation

    pairs = {
        f"past_{i}_{k}": f"present.{i}.{k}" for i in range(KV_LAYERS) for k in ("key", "value")
    }
    apply_make_stateful_transformation(model, pairs)
    (input_ids,) = [p for p in model.get_parameters() if "input_ids" in p.output(0).get_names()]
    batch = ops.gather(ops.shape_of(input_ids), ops.constant(np.int64([0])),
                       ops.constant(np.int64(0)))  # fmt: skip
    empty = ops.concat([batch, ops.constant(np.int64([KV_HEADS, 0, HEAD_SIZE]))], 0)
    for node in [n for n in model.get_ordered_ops() if n.get_type_name() == "ReadValue"]:
        variable = model.get_variable_by_id(node.get_variable_id())
        fresh = ops.read_value(ops.broadcast(ops.constant(np.float32(0)), empty), variable)
        fresh.set_friendly_name(node.get_friendly_name())
        node.output(0).replace(fresh.output(0))
    model.validate_nodes_and_infer_types()


def _compress(model, variant: str, spec: Spec):
    """``int8``/``int4``: NNCF weight compression; ``fq``: NNCF post-training quantisation
    on a small random calibration set drawn like the model's inputs."""
    import nncf

    if variant == "int8":
        return nncf.compress_weights(model, mode=nncf.CompressWeightsMode.INT8_ASYM)
    if variant == "int4":
        return nncf.compress_weights(model, mode=nncf.CompressWeightsMode.INT4_ASYM,
                                     group_size=16, ratio=1.0, all_layers=True)  # fmt: skip
    rng = np.random.default_rng(SEED)
    samples = []
    for _ in range(4):
        sample = {}
        for name, value in spec.inputs.items():
            if value.dtype == np.float32:
                sample[name] = rng.standard_normal(value.shape).astype(np.float32)
            elif name == "attention_mask":
                sample[name] = value
            else:
                sample[name] = rng.integers(0, VOCAB, value.shape, dtype=value.dtype)
        samples.append(sample)
    model_type = nncf.ModelType.TRANSFORMER if spec.kind == "seq" else None
    return nncf.quantize(model, nncf.Dataset(samples), subset_size=len(samples),
                         model_type=model_type)  # fmt: skip


def _layer_histogram(xml_path: Path) -> Counter:
    root = ET.parse(xml_path).getroot()
    return Counter((layer.get("type"), layer.get("version")) for layer in root.iter("layer"))


def _run_openvino(xml_path: Path, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    import openvino as ov

    core = ov.Core()
    model = core.read_model(xml_path)
    compiled = core.compile_model(model, "CPU", CPU_CONFIG)
    result = compiled({name: value for name, value in inputs.items()})
    return {
        output.get_any_name(): np.asarray(result[compiled.outputs[i]]).copy()
        for i, output in enumerate(model.outputs)
    }


#: f32 arithmetic, and no on-the-fly int8 quantisation of activations for compressed weights.
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}


def _run_openvino_steps(xml_path: Path, steps: list[dict]) -> list[dict[str, np.ndarray]]:
    """A stateful model run step after step on one infer request (its states carried)."""
    import openvino as ov

    core = ov.Core()
    model = core.read_model(xml_path)
    request = core.compile_model(model, "CPU", CPU_CONFIG).create_infer_request()
    results = []
    for feed in steps:
        result = request.infer(feed)
        results.append({output.get_any_name(): np.asarray(result[i]).copy()
                        for i, output in enumerate(model.outputs)})  # fmt: skip
    return results


def _torch_outputs(spec: Spec, names: list[str]) -> dict[str, np.ndarray]:
    import torch

    example = {name: torch.from_numpy(value) for name, value in spec.inputs.items()}
    args, kwargs = (list(example.values()), {}) if spec.kind in ("cnn", "det") else ([], example)
    with torch.no_grad():
        result = spec.module(*args, **kwargs)
    if isinstance(result, torch.Tensor):
        return {names[0]: result.numpy()}
    if isinstance(result, tuple):
        return {name: value.numpy() for name, value in zip(spec.output_names, result)}
    return {name: result[name].numpy() for name in names if name in result}


def _partial_shape(port) -> list:
    return [dim.get_length() if dim.is_static else -1 for dim in port.get_partial_shape()]


VARIANTS = {
    # variant: (dynamic shapes, compress_to_fp16)
    "static_f32": (False, False),
    "static_f16": (False, True),
    "dynamic_f32": (True, False),
    "int8": (False, False),
    "int4": (False, False),
    "fq": (False, False),
    "stateful_f32": (True, False),
}


def write_ir(name: str, variant: str, out: Path) -> dict:
    """Build model ``name``, save one variant of it with inputs and outputs; its manifest entry.

    Run in a fresh process for each IR (see ``main``): OpenVINO numbers the names of the nodes
    it creates (``Constant_56``) with process-wide counters, so only a fresh process writes the
    same XML whether one model or all of them are being made.
    """
    import openvino as ov
    import torch

    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    dynamic, fp16 = VARIANTS[variant]
    with torch.no_grad():
        spec = BUILDERS[name]()
        model = _convert(spec, dynamic)
    if variant in ("int8", "int4", "fq"):
        model = _compress(model, variant, spec)
    folder = out / f"{spec.name}_{variant}"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    xml_path = folder / "model.xml"
    ov.save_model(model, xml_path, compress_to_fp16=fp16)
    saved = ov.Core().read_model(xml_path)
    names = [port.get_any_name() for port in saved.inputs]
    wanted = spec.steps[0] if spec.steps else spec.inputs
    if set(names) != set(wanted):
        raise RuntimeError(f"{spec.name}: IR inputs {names} != {list(wanted)}")
    if spec.steps:  # stateful: every step's inputs and outputs, keyed step<N>.<name>
        results = _run_openvino_steps(xml_path, spec.steps)
        inputs = {f"step{i}.{k}": v for i, feed in enumerate(spec.steps) for k, v in feed.items()}
        expected = {f"step{i}.{k}": v for i, out in enumerate(results) for k, v in out.items()}
        torch_diff = {}
    else:
        inputs = {name: spec.inputs[name] for name in names}
        expected = _run_openvino(xml_path, inputs)
        reference = _torch_outputs(spec, list(expected))
        torch_diff = {
            name: float(np.max(np.abs(expected[name] - reference[name])))
            for name in expected
            if name in reference
        }
    np.savez(folder / "inputs.npz", **inputs)
    np.savez(folder / "expected.npz", **expected)
    histogram = _layer_histogram(xml_path)
    print(
        f"  {folder.name}: {sum(histogram.values())} layers, outputs {list(expected)}, "
        f"max |OpenVINO - torch| {torch_diff}",
        flush=True,
    )
    return {
        "model": spec.name,
        "variant": variant,
        "file": f"{folder.name}/model.xml",
        "weights": f"{folder.name}/model.bin",
        "inputs_file": f"{folder.name}/inputs.npz",
        "expected_file": f"{folder.name}/expected.npz",
        "compress_to_fp16": fp16,
        "steps": len(spec.steps),
        "inputs": {
            port.get_any_name(): {
                "ir_shape": _partial_shape(port),
                "shape": list(wanted[port.get_any_name()].shape),
                "dtype": str(wanted[port.get_any_name()].dtype),
            }
            for port in saved.inputs
        },
        "outputs": {
            port.get_any_name(): {
                "ir_shape": _partial_shape(port),
                "shape": list(_first(expected, port.get_any_name()).shape),
                "dtype": str(_first(expected, port.get_any_name()).dtype),
                "all_names": sorted(port.get_names()),
            }
            for port in saved.outputs
        },
        "max_abs_diff_vs_torch": torch_diff,
        "layer_count": sum(histogram.values()),
        "layers": {
            f"{kind}/{version}": count for (kind, version), count in sorted(histogram.items())
        },
        "_description": spec.description,
        "_kind": spec.kind,
    }


def _first(expected: dict, name: str) -> np.ndarray:
    """An output's array (a stateful model's from its first step)."""
    return expected[name] if name in expected else expected[f"step0.{name}"]


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    result = {}
    for package in ("openvino", "numpy", "torch", "torchvision", "transformers", "timm", "nncf"):
        try:
            result[package] = md.version(package)
        except md.PackageNotFoundError:
            result[package] = "absent"
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    parser.add_argument("--only", nargs="*", choices=sorted(BUILDERS), help="models to build")
    arguments = parser.parse_args()

    out: Path = arguments.out
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / "manifest.json"
    selected = arguments.only or list(BUILDERS)

    old = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    models = {name: old["models"][name] for name in old.get("models", {}) if name in BUILDERS}
    irs = [entry for entry in old.get("irs", []) if entry["model"] not in selected]

    jobs = [(name, variant, out) for name in selected for variant in MODEL_VARIANTS[name]]
    # One fresh process per IR (see write_ir); two at a time.
    context = multiprocessing.get_context("spawn")
    with context.Pool(processes=2, maxtasksperchild=1) as pool:
        entries = pool.starmap(write_ir, jobs, chunksize=1)
    for entry in entries:
        description, kind = entry.pop("_description"), entry.pop("_kind")
        models[entry["model"]] = {
            "description": description,
            "dynamic_dim": {
                "cnn": "batch (axis 0)",
                "seq": "sequence (axis 1)",
                "det": "none (static only)",
                "stateful": "sequence and past length",
            }[kind],  # fmt: skip
        }
        irs.append(entry)

    order = list(BUILDERS)
    irs.sort(key=lambda entry: (order.index(entry["model"]), entry["variant"]))
    overall: Counter = Counter()
    for entry in irs:
        overall.update(entry["layers"])
    manifest = {
        "generator": "scripts/make_real_models.py",
        "seed": SEED,
        "versions": _versions(),
        "models": {name: models[name] for name in order if name in models},
        "irs": irs,
        "overall_layers": dict(sorted(overall.items(), key=lambda kv: (-kv[1], kv[0]))),
    }
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")

    print("\nlayer type/version over all IRs:")
    for key, count in sorted(overall.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {count:6d}  {key}")
    total = sum(path.stat().st_size for path in out.rglob("*") if path.is_file())
    print(f"\nwrote {len(irs)} IRs to {out} ({total / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
