"""Build full-size models with random weights for ``bench_execute.py --real-models``.

Run as ``python bench/build_real_models.py CACHE_DIR [NAME ...]`` in a Python that has torch
and transformers (``pip install -r bench/requirements-real-models.txt``). Each model is
written once to ``CACHE_DIR/NAME/`` as OpenVINO IR (``model.xml``/``model.bin``, f32
weights), as ONNX (``model.onnx``) and with its inputs (``inputs.npz``); a model already
there is not built again. The last line printed is a JSON object
``{name: {"xml", "onnx", "inputs"} or {"error"}}``.

Models (random weights, seed 0, batch 1, eval mode):

- ``resnet50`` / ``resnet18``: transformers ``ResNetModel`` with the ResNet-50 (bottleneck,
  depths 3-4-6-3) and ResNet-18 (basic, 2-2-2-2) layouts, input 1x3x224x224;
- ``mobilenet_v3_large``: MobileNetV3-large as torchvision lays it out (written here in plain
  torch, torchvision is not needed), input 1x3x224x224;
- ``bert_base``: ``BertModel`` with BERT-base's configuration, sequence 128;
- ``gpt2_small``: ``GPT2Model`` with GPT-2 small's configuration, sequence 128, no cache.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

import numpy as np

SEQUENCE = 128


def _image():
    return {"pixel_values": np.random.default_rng(0).standard_normal((1, 3, 224, 224),
                                                                     dtype=np.float32)}  # fmt: skip


def _tokens(names, vocab):
    rng = np.random.default_rng(0)
    inputs = {"input_ids": rng.integers(0, vocab, (1, SEQUENCE)).astype(np.int64)}
    if "attention_mask" in names:
        inputs["attention_mask"] = np.ones((1, SEQUENCE), np.int64)
    if "token_type_ids" in names:
        inputs["token_type_ids"] = np.zeros((1, SEQUENCE), np.int64)
    return inputs


def build(name):
    """``(torch module, inputs)`` of one model."""
    import torch

    torch.manual_seed(0)
    if name in ("resnet50", "resnet18"):
        from transformers import ResNetConfig, ResNetModel

        config = (
            ResNetConfig(depths=[3, 4, 6, 3], layer_type="bottleneck")
            if name == "resnet50"
            else ResNetConfig(
                depths=[2, 2, 2, 2], hidden_sizes=[64, 128, 256, 512], layer_type="basic"
            )  # fmt: skip
        )
        return ResNetModel(config).eval(), _image()
    if name == "mobilenet_v3_large":
        return mobilenet_v3_large().eval(), _image()
    if name == "bert_base":
        from transformers import BertConfig, BertModel

        config = BertConfig(attn_implementation="eager")
        return BertModel(config).eval(), _tokens(
            ["attention_mask", "token_type_ids"], config.vocab_size
        )
    if name == "gpt2_small":
        from transformers import GPT2Config, GPT2Model

        config = GPT2Config(use_cache=False, attn_implementation="eager")
        return GPT2Model(config).eval(), _tokens(["attention_mask"], config.vocab_size)
    raise ValueError(f"unknown model {name!r}")


#: MobileNetV3-large's blocks: kernel, expanded channels, out channels, squeeze-excitation,
#: HardSwish (else ReLU), stride (the paper's table 1, as torchvision builds it).
_MOBILENET_V3_LARGE = [
    (3, 16, 16, False, False, 1), (3, 64, 24, False, False, 2), (3, 72, 24, False, False, 1),
    (5, 72, 40, True, False, 2), (5, 120, 40, True, False, 1), (5, 120, 40, True, False, 1),
    (3, 240, 80, False, True, 2), (3, 200, 80, False, True, 1), (3, 184, 80, False, True, 1),
    (3, 184, 80, False, True, 1), (3, 480, 112, True, True, 1), (3, 672, 112, True, True, 1),
    (5, 672, 160, True, True, 2), (5, 960, 160, True, True, 1), (5, 960, 160, True, True, 1),
]  # fmt: skip


def mobilenet_v3_large():
    """MobileNetV3-large with 1000 classes, random weights."""
    from torch import nn

    def divisible(value, divisor=8):
        rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
        return rounded + divisor if rounded < 0.9 * value else rounded

    def conv(inputs, outputs, kernel, stride=1, groups=1, activation=None):
        layers = [nn.Conv2d(inputs, outputs, kernel, stride, (kernel - 1) // 2, groups=groups,
                            bias=False), nn.BatchNorm2d(outputs)]  # fmt: skip
        return nn.Sequential(*layers, *([activation()] if activation else []))

    class SqueezeExcitation(nn.Module):
        def __init__(self, channels):
            super().__init__()
            squeezed = divisible(channels // 4)
            self.reduce, self.expand = (
                nn.Conv2d(channels, squeezed, 1),
                nn.Conv2d(squeezed, channels, 1),
            )

        def forward(self, x):
            scale = x.mean((2, 3), keepdim=True)
            return x * nn.functional.hardsigmoid(
                self.expand(nn.functional.relu(self.reduce(scale)))
            )

    class Block(nn.Module):
        def __init__(self, inputs, kernel, expanded, outputs, excite, hardswish, stride):
            super().__init__()
            act = nn.Hardswish if hardswish else nn.ReLU
            layers = [conv(inputs, expanded, 1, activation=act)] if expanded != inputs else []
            layers.append(conv(expanded, expanded, kernel, stride, expanded, act))
            if excite:
                layers.append(SqueezeExcitation(expanded))
            layers.append(conv(expanded, outputs, 1))
            self.body = nn.Sequential(*layers)
            self.residual = stride == 1 and inputs == outputs

        def forward(self, x):
            return x + self.body(x) if self.residual else self.body(x)

    blocks, channels = [conv(3, 16, 3, 2, activation=nn.Hardswish)], 16
    for kernel, expanded, outputs, excite, hardswish, stride in _MOBILENET_V3_LARGE:
        blocks.append(Block(channels, kernel, expanded, outputs, excite, hardswish, stride))
        channels = outputs
    blocks.append(conv(channels, 960, 1, activation=nn.Hardswish))
    network = nn.Sequential(
        *blocks, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(960, 1280), nn.Hardswish(),
        nn.Dropout(0.2), nn.Linear(1280, 1000),
    )  # fmt: skip

    class MobileNetV3(nn.Module):
        def __init__(self):
            super().__init__()
            self.network = network

        def forward(self, pixel_values):
            return self.network(pixel_values)

    return MobileNetV3()


class _Outputs:
    """A wrapper returning the module's outputs as a tuple (for both converters)."""

    def __init__(self, module, names):
        import torch

        class Wrapped(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = module

            def forward(self, *arguments):
                result = self.inner(**dict(zip(names, arguments)))
                if hasattr(result, "to_tuple"):
                    result = result.to_tuple()
                return tuple(result) if isinstance(result, (tuple, list)) else (result,)

        self.module = Wrapped().eval()


def write(name, folder: Path) -> dict:
    import openvino as ov
    import torch

    xml, onnx_path, inputs_path = folder / "model.xml", folder / "model.onnx", folder / "inputs.npz"
    entry = {"xml": str(xml), "onnx": str(onnx_path), "inputs": str(inputs_path)}
    if xml.exists() and inputs_path.exists():
        return entry
    folder.mkdir(parents=True, exist_ok=True)
    module, inputs = build(name)
    names = list(inputs)
    wrapped = _Outputs(module, names).module
    example = tuple(torch.from_numpy(inputs[n]) for n in names)
    with torch.no_grad():
        model = ov.convert_model(wrapped, example_input=example)
        for port, input_name in zip(model.inputs, names):
            port.get_tensor().set_names({input_name})
        ov.save_model(model, xml, compress_to_fp16=False)
        try:
            torch.onnx.export(wrapped, example, str(onnx_path), input_names=names,
                              opset_version=17, dynamo=False)  # fmt: skip
        except Exception as exc:  # noqa: BLE001 - the ONNX columns are then left out
            entry["onnx_error"] = f"{type(exc).__name__}: {exc}"[:300]
    np.savez(inputs_path, **inputs)
    return entry


def main(argv) -> None:
    cache, names = Path(argv[0]), argv[1:]
    manifest = {}
    for name in names:
        try:
            manifest[name] = write(name, cache / name)
        except Exception as exc:  # noqa: BLE001 - reported in the manifest, the rest goes on
            traceback.print_exc()
            manifest[name] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
    print(json.dumps(manifest))


if __name__ == "__main__":
    main(sys.argv[1:])
