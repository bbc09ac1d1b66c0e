"""Convert many real architectures with random weights and check each with irrun.

Every architecture in :data:`ARCHITECTURES` (torchvision, timm, Hugging Face transformers with
small configs) is built with seeded random weights, converted by ``openvino.convert_model``
(input shapes as the converter leaves them: dynamic for the vision models; the transformers
fixed to their example inputs unless ``--variant dynamic``) and saved into a temporary folder
with the weights of ``--variant``: ``f16`` (the default compression of ``save_model``),
``f32``, ``int8`` / ``int4`` (``nncf.compress_weights``: asymmetric 8-bit, symmetric 4-bit
in groups, as optimum-intel ships LLMs), or ``dynamic`` (f16, transformers keeping their
dynamic batch and sequence); then ``irrun validate`` and ``irrun compare`` (seeded random
inputs; dynamic dims get the smallest size the model takes, or a dynamic transformer the
example's shapes) run on it. One line per model, then the totals: models
built, validated without an error, compared without a disagreement. Nothing is written to the
work tree: this tries the converter's real output at scale (the committed real models of the
tests come from ``scripts/make_real_models.py``).

A model that the converter cannot convert (an unsupported aten op, a tracing failure of the
installed transformers), or that nncf cannot compress (INT4 groups of 16 that do not divide a
layer's channels), is listed as not built: those are not irrun's.

Needs (heavy, not project dependencies; a throw-away venv as in make_real_models.py)::

    "$VENV"/bin/pip install torch torchvision timm transformers nncf

Run from the repository root::

    "$VENV"/bin/python scripts/sweep_architectures.py [--only tv:resnet18 'hf:*' ...]
        [--variant f16|f32|int8|int4|dynamic] [--out DIR] [--keep]
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import shutil
import subprocess
import sys
import tempfile
import time

VISION = [
    "tv:resnet18", "tv:mobilenet_v2", "tv:efficientnet_b0", "tv:densenet121",
    "tv:squeezenet1_0", "tv:shufflenet_v2_x0_5", "tv:mnasnet0_5", "tv:regnet_y_400mf",
    "tv:convnext_tiny", "tv:swin_t", "tv:swin_v2_t", "tv:maxvit_t", "tv:googlenet",
    "tv:inception_v3", "tv:alexnet", "tv:vgg11", "tv:efficientnet_v2_s", "tv:vit_b_16",
    "tv:resnext50_32x4d", "tv:r3d_18", "tv:r2plus1d_18", "tv:deeplabv3_mobilenet_v3_large",
    "tv:fcn_resnet50", "tv:raft_small",
    "timm:mobilevit_xs", "timm:deit_tiny_patch16_224", "timm:levit_128", "timm:poolformer_s12",
    "timm:ghostnet_100", "timm:mixnet_s", "timm:dla34", "timm:hrnet_w18_small",
    "timm:cspresnet50", "timm:rexnet_100", "timm:edgenext_xx_small", "timm:efficientformer_l1",
    "timm:fastvit_t8", "timm:repvit_m1", "timm:mobileone_s0", "timm:nfnet_l0",
    "timm:xcit_nano_12_p16_224", "timm:pit_ti_224", "timm:cait_xxs24_224", "timm:gcvit_xxtiny",
    "timm:coatnet_nano_rw_224", "timm:davit_tiny", "timm:sequencer2d_s", "timm:resmlp_12_224",
    "timm:gmlp_ti16_224", "timm:res2net50_14w_8s", "timm:selecsls42b", "timm:tresnet_m",
    "timm:crossvit_tiny_240", "timm:volo_d1_224", "timm:mobilenetv4_conv_small",
    "timm:efficientvit_b0", "timm:inception_next_tiny", "timm:hgnet_tiny", "timm:vovnet39a",
    "timm:cspdarknet53", "timm:eva02_tiny_patch14_224", "timm:twins_svt_small",
    "timm:pvt_v2_b0", "timm:nest_tiny", "timm:visformer_tiny", "timm:lambda_resnet26t",
    "timm:halonet26t", "timm:botnet26t_256", "timm:gernet_s", "timm:regnetz_b16",
    "timm:resnest14d", "timm:skresnet18", "timm:dpn68", "timm:xception41", "timm:lcnet_050",
    "timm:tinynet_a", "timm:fbnetc_100", "timm:hardcorenas_a", "timm:efficientnet_lite0",
    "timm:ese_vovnet19b_dw", "timm:mvitv2_tiny", "timm:focalnet_tiny_srf",
    # detection (NMS, ROIAlign, TopK, data-dependent shapes) and more video
    "tv:fasterrcnn_mobilenet_v3_large_320_fpn", "tv:retinanet_resnet50_fpn", "tv:ssd300_vgg16",
    "tv:fcos_resnet50_fpn", "tv:maskrcnn_resnet50_fpn", "tv:keypointrcnn_resnet50_fpn",
    "tv:mc3_18", "tv:swin3d_t", "tv:mvit_v2_s",
    "timm:tnt_s_patch16_224", "timm:coat_lite_tiny", "timm:tiny_vit_5m_224",
    "timm:efficientformerv2_s0", "timm:hiera_tiny_224", "timm:maxxvit_rmlp_nano_rw_256",
    "timm:mixer_s16_224", "timm:vit_relpos_small_patch16_224", "timm:nextvit_small",
    "timm:rdnet_tiny", "timm:ghostnetv2_100", "timm:starnet_s1", "timm:repghostnet_050",
    "timm:mambaout_femto", "timm:fastvit_mci0", "timm:vit_small_patch16_rope_224",
    "timm:caformer_s18", "timm:inception_v4", "timm:ecaresnet26t", "timm:seresnext26d_32x4d",
    "timm:dm_nfnet_f0", "timm:gc_efficientnetv2_rw_t", "timm:resnetv2_50x1_bit",
    "timm:levit_conv_128", "timm:efficientvit_m0", "timm:shvit_s1", "timm:swiftformer_xs",
    "timm:regnetv_040", "timm:nasnetalarge",
]  # fmt: skip

_SMALL = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
_SEQ2SEQ = dict(d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128)  # fmt: skip
#: name -> (model class, config class, config, example inputs: name -> (kind, shape))
TRANSFORMERS = {
    "bert": ("BertModel", "BertConfig", _SMALL),
    "distilbert": ("DistilBertModel", "DistilBertConfig",
                   dict(dim=64, n_layers=2, n_heads=4, hidden_dim=128)),
    "roberta": ("RobertaModel", "RobertaConfig", _SMALL),
    "albert": ("AlbertModel", "AlbertConfig", dict(_SMALL, embedding_size=32)),
    "electra": ("ElectraModel", "ElectraConfig", dict(_SMALL, embedding_size=32)),
    "deberta_v2": ("DebertaV2Model", "DebertaV2Config", _SMALL),
    "mobilebert": ("MobileBertModel", "MobileBertConfig",
                   dict(_SMALL, intermediate_size=64, embedding_size=32, intra_bottleneck_size=32,
                        true_hidden_size=32)),
    "xlm_roberta": ("XLMRobertaModel", "XLMRobertaConfig", _SMALL),
    "squeezebert": ("SqueezeBertModel", "SqueezeBertConfig", dict(_SMALL, embedding_size=64)),
    "funnel": ("FunnelModel", "FunnelConfig",
               dict(d_model=64, n_head=4, d_head=16, d_inner=128, block_sizes=[1, 1, 1])),
    "gpt2": ("GPT2Model", "GPT2Config", dict(n_embd=64, n_layer=2, n_head=4)),
    "gpt_neo": ("GPTNeoModel", "GPTNeoConfig", dict(hidden_size=64, num_layers=2, num_heads=4,
                                                    attention_types=[[["global", "local"], 1]],
                                                    window_size=8)),
    "gptj": ("GPTJModel", "GPTJConfig", dict(n_embd=64, n_layer=2, n_head=4, rotary_dim=8)),
    "codegen": ("CodeGenModel", "CodeGenConfig", dict(n_embd=64, n_layer=2, n_head=4,
                                                      rotary_dim=8)),
    "gpt_neox": ("GPTNeoXModel", "GPTNeoXConfig", _SMALL),
    "falcon": ("FalconModel", "FalconConfig", dict(hidden_size=64, num_hidden_layers=2,
                                                   num_attention_heads=4)),
    "llama": ("LlamaModel", "LlamaConfig", dict(_SMALL, num_key_value_heads=2)),
    "mistral": ("MistralModel", "MistralConfig", dict(_SMALL, num_key_value_heads=2,
                                                      sliding_window=8)),
    "qwen2": ("Qwen2Model", "Qwen2Config", dict(_SMALL, num_key_value_heads=2)),
    "phi": ("PhiModel", "PhiConfig", _SMALL),
    "phi3": ("Phi3Model", "Phi3Config", dict(_SMALL, num_key_value_heads=2, pad_token_id=0)),
    "gemma": ("GemmaModel", "GemmaConfig", dict(_SMALL, num_key_value_heads=2, head_dim=16)),
    "gemma2": ("Gemma2Model", "Gemma2Config", dict(_SMALL, num_key_value_heads=2,
                                                   head_dim=16)),
    "opt": ("OPTModel", "OPTConfig", dict(hidden_size=64, num_hidden_layers=2,
                                          num_attention_heads=4, ffn_dim=128,
                                          word_embed_proj_dim=64)),
    "bloom": ("BloomModel", "BloomConfig", dict(hidden_size=64, n_layer=2, n_head=4)),
    "mpt": ("MptModel", "MptConfig", dict(d_model=64, n_layers=2, n_heads=4)),
    "mamba": ("MambaModel", "MambaConfig", dict(hidden_size=64, num_hidden_layers=2,
                                                state_size=8)),
    "t5": ("T5Model", "T5Config", dict(d_model=64, d_ff=128, num_layers=2, num_heads=4,
                                       d_kv=16)),
    "bart": ("BartModel", "BartConfig", _SEQ2SEQ),
    "marian": ("MarianModel", "MarianConfig", dict(_SEQ2SEQ, vocab_size=100,
                                                   decoder_vocab_size=100, pad_token_id=0,
                                                   decoder_start_token_id=0)),
    "pegasus": ("PegasusModel", "PegasusConfig", _SEQ2SEQ),
    "mbart": ("MBartModel", "MBartConfig", _SEQ2SEQ),
    "vit": ("ViTModel", "ViTConfig", dict(_SMALL, image_size=64, patch_size=16)),
    "deit": ("DeiTModel", "DeiTConfig", dict(_SMALL, image_size=64, patch_size=16)),
    "beit": ("BeitModel", "BeitConfig", dict(_SMALL, image_size=64, patch_size=16,
                                             use_relative_position_bias=True)),
    "segformer": ("SegformerModel", "SegformerConfig",
                  dict(num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32],
                       num_attention_heads=[1, 2], mlp_ratios=[2, 2], strides=[4, 2],
                       patch_sizes=[7, 3])),
    "mobilevit": ("MobileViTModel", "MobileViTConfig",
                  dict(image_size=64, hidden_sizes=[16, 24, 32],
                       neck_hidden_sizes=[8, 8, 16, 16, 24, 24, 48])),
    "resnet": ("ResNetModel", "ResNetConfig", dict(hidden_sizes=[16, 32], depths=[1, 1],
                                                   embedding_size=16)),
    "regnet": ("RegNetModel", "RegNetConfig", dict(hidden_sizes=[16, 32], depths=[1, 1],
                                                   embedding_size=16, groups_width=8)),
    "mobilenet_v2": ("MobileNetV2Model", "MobileNetV2Config",
                     dict(depth_multiplier=0.35, image_size=64)),
    "focalnet": ("FocalNetModel", "FocalNetConfig", dict(embed_dim=16, depths=[1, 1],
                                                         image_size=64)),
    "wav2vec2": ("Wav2Vec2Model", "Wav2Vec2Config",
                 dict(_SMALL, conv_dim=(32, 32), conv_stride=(5, 2), conv_kernel=(10, 3),
                      num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4)),
    "wavlm": ("WavLMModel", "WavLMConfig",
              dict(_SMALL, conv_dim=(32, 32), conv_stride=(5, 2), conv_kernel=(10, 3),
                   num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4)),
    "hubert": ("HubertModel", "HubertConfig",
               dict(_SMALL, conv_dim=(32, 32), conv_stride=(5, 2), conv_kernel=(10, 3),
                    num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4)),
    "clip_text": ("CLIPTextModel", "CLIPTextConfig", _SMALL),
    "clip_vision": ("CLIPVisionModel", "CLIPVisionConfig",
                    dict(_SMALL, image_size=64, patch_size=16)),
    "siglip_vision": ("SiglipVisionModel", "SiglipVisionConfig",
                      dict(_SMALL, image_size=64, patch_size=16)),
    "dinov2": ("Dinov2Model", "Dinov2Config", dict(_SMALL, image_size=64, patch_size=16)),
    "swin": ("SwinModel", "SwinConfig", dict(image_size=64, patch_size=4, embed_dim=16,
                                             depths=[1, 1], num_heads=[1, 2], window_size=4)),
    "convnext": ("ConvNextModel", "ConvNextConfig", dict(num_stages=2, hidden_sizes=[16, 32],
                                                         depths=[1, 1],
                                                         image_size=64)),
    "yolos": ("YolosModel", "YolosConfig", dict(_SMALL, image_size=[64, 64], patch_size=16,
                                                num_detection_tokens=5)),
    "detr": ("DetrModel", "DetrConfig",
             dict(use_timm_backbone=False, use_pretrained_backbone=False,
                  backbone_config=dict(model_type="resnet", hidden_sizes=[16, 32],
                                       depths=[1, 1], embedding_size=16,
                                       out_features=["stage2"]),
                  d_model=64, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4,
                  decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128,
                  num_queries=10)),
    "gpt_bigcode": ("GPTBigCodeModel", "GPTBigCodeConfig",
                    dict(n_embd=64, n_layer=2, n_head=4, multi_query=True)),
    "stablelm": ("StableLmModel", "StableLmConfig", dict(_SMALL, num_key_value_heads=2)),
    "starcoder2": ("Starcoder2Model", "Starcoder2Config", dict(_SMALL, num_key_value_heads=2)),
    "olmo": ("OlmoModel", "OlmoConfig", _SMALL),
    "granite": ("GraniteModel", "GraniteConfig", dict(_SMALL, num_key_value_heads=2)),
    "cohere": ("CohereModel", "CohereConfig", dict(_SMALL, num_key_value_heads=2)),
    "qwen3": ("Qwen3Model", "Qwen3Config", dict(_SMALL, num_key_value_heads=2, head_dim=16)),
    "xlnet": ("XLNetModel", "XLNetConfig", dict(d_model=64, n_layer=2, n_head=4, d_inner=128)),
    "convbert": ("ConvBertModel", "ConvBertConfig", dict(_SMALL, embedding_size=64)),
    "ernie": ("ErnieModel", "ErnieConfig", _SMALL),
    "layoutlm": ("LayoutLMModel", "LayoutLMConfig", _SMALL),
    "mt5": ("MT5Model", "MT5Config", dict(d_model=64, d_ff=128, num_layers=2, num_heads=4,
                                          d_kv=16)),
    "blenderbot": ("BlenderbotModel", "BlenderbotConfig", _SEQ2SEQ),
    "m2m100": ("M2M100Model", "M2M100Config", _SEQ2SEQ),
}  # fmt: skip
_IMAGES = {"vit", "deit", "beit", "segformer", "mobilevit", "resnet", "regnet", "mobilenet_v2",
           "focalnet", "clip_vision", "siglip_vision", "dinov2", "swin", "convnext", "yolos",
           "detr"}  # fmt: skip
_AUDIO = {"wav2vec2", "wavlm", "hubert"}
_SEQ2SEQ_MODELS = {"t5", "bart", "marian", "pegasus", "mbart", "mt5", "blenderbot", "m2m100"}
ARCHITECTURES = VISION + [f"hf:{name}" for name in TRANSFORMERS]


#: Vision models compared at their example's input shape: they take no other size (the
#: others are compared at the smallest size irrun's random inputs find).
EXAMPLE_SHAPED = {"tv:mvit_v2_s"}

#: The weight formats and shapes a model can be saved with (see the module docstring).
VARIANTS = ("f16", "f32", "int8", "int4", "dynamic")


def build(name: str, folder: str, variant: str = "f16") -> None:
    """Build architecture ``name`` with seeded random weights and save it as folder/model.xml
    in ``variant`` (one of :data:`VARIANTS`)."""
    import openvino as ov
    import torch

    torch.manual_seed(0)
    kind, _, arch = name.partition(":")
    if kind == "tv":
        module, example = _torchvision(arch)
    elif kind == "timm":
        import timm

        module = timm.create_model(arch, pretrained=False).eval()
        example = (torch.randn(1, *module.pretrained_cfg.get("input_size", (3, 224, 224))),)
    elif kind == "hf":
        module, example = _transformers(arch)
    else:
        raise SystemExit(f"unknown architecture kind in {name!r}")
    with torch.no_grad():
        converted = ov.convert_model(module, example_input=example)
    if kind == "hf" and variant != "dynamic":
        # fixed to the example inputs (token ids of unknown length otherwise)
        converted.reshape({i: list(t.shape) for i, t in zip(converted.inputs, example)})
    if (kind == "hf" and variant == "dynamic") or name in EXAMPLE_SHAPED:
        # compared on the example's shapes (see check)
        shapes = [f"{port.any_name}={','.join(map(str, tensor.shape))}"
                  for port, tensor in zip(converted.inputs, example)]  # fmt: skip
        with open(os.path.join(folder, "shapes.txt"), "w") as file:
            file.write("\n".join(shapes))
    if variant in ("int8", "int4"):
        import nncf

        mode = (nncf.CompressWeightsMode.INT8_ASYM if variant == "int8"
                else nncf.CompressWeightsMode.INT4_SYM)  # fmt: skip
        # (ratio 1 and group 16: every MatMul/embedding of these small models in 4 bits)
        extra = {} if variant == "int8" else {"ratio": 1.0, "group_size": 16}
        converted = nncf.compress_weights(converted, mode=mode, **extra)
    ov.save_model(converted, os.path.join(folder, "model.xml"),
                  compress_to_fp16=variant != "f32")  # fmt: skip


_DETECTION = {
    "fasterrcnn_mobilenet_v3_large_320_fpn",
    "retinanet_resnet50_fpn",
    "ssd300_vgg16",
    "fcos_resnet50_fpn",
    "maskrcnn_resnet50_fpn",
    "keypointrcnn_resnet50_fpn",
}


def _torchvision(arch: str):
    import torch
    import torchvision

    models = torchvision.models
    if arch.startswith(("r3d", "r2plus1d")):
        return getattr(models.video, arch)(weights=None).eval(), (torch.randn(1, 3, 16, 112, 112),)
    if arch == "raft_small":
        frames = (torch.randn(1, 3, 128, 128), torch.randn(1, 3, 128, 128))
        return models.optical_flow.raft_small(weights=None).eval(), frames
    if arch in _DETECTION:
        size = 320 if "320" in arch else 300 if arch.startswith("ssd") else 256
        # (the R-CNNs, RetinaNet and FCOS resize to 800 pixels unless told otherwise)
        resize = {} if arch.startswith("ssd") else dict(min_size=size, max_size=size)
        inner = getattr(models.detection, arch)(weights=None, weights_backbone=None,
                                                **resize).eval()  # fmt: skip
        # (random weights score low: keep every box, so that the outputs are not empty)
        for name in ("box_score_thresh", "score_thresh"):
            for owner in (inner, getattr(inner, "roi_heads", None)):
                if owner is not None and hasattr(owner, name):
                    setattr(owner, name, 0.0)

        class Detections(torch.nn.Module):
            """The first image's detections as a tuple of tensors (not a list of dicts)."""

            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, x):
                found = self.inner(list(x))[0]
                return tuple(found[key] for key in sorted(found))

        return Detections(inner).eval(), (torch.randn(1, 3, size, size),)
    if arch in ("mc3_18", "swin3d_t", "mvit_v2_s"):
        frames = 16 if arch == "mvit_v2_s" else 8
        size = 224 if arch == "mvit_v2_s" else 112
        return getattr(models.video, arch)(weights=None).eval(), (
            torch.randn(1, 3, frames, size, size),
        )
    if arch.startswith(("deeplab", "fcn")):
        inner = getattr(models.segmentation, arch)(weights=None, weights_backbone=None).eval()

        class Out(torch.nn.Module):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, x):
                return self.inner(x)["out"]

        return Out(inner).eval(), (torch.randn(1, 3, 224, 224),)
    extra = dict(aux_logits=False, init_weights=False) if arch in ("inception_v3",
                                                                   "googlenet") else {}  # fmt: skip
    size = 299 if arch == "inception_v3" else 224
    return getattr(models, arch)(weights=None, **extra).eval(), (torch.randn(1, 3, size, size),)


def _transformers(arch: str):
    import inspect

    import torch
    import transformers

    model_class, config_class, settings = TRANSFORMERS[arch]
    config = getattr(transformers, config_class)(**settings)
    inner = getattr(transformers, model_class)(config).eval()
    vocab = min(getattr(config, "vocab_size", 100) or 100, 100)
    if arch in _IMAGES:
        example = {"pixel_values": torch.randn(1, 3, 64, 64)}
    elif arch in _AUDIO:
        example = {"input_values": torch.randn(1, 1600)}
    elif arch in _SEQ2SEQ_MODELS:
        ids = torch.randint(0, vocab, (1, 12))
        example = {"input_ids": ids, "decoder_input_ids": ids[:, :6]}
    else:
        example = {"input_ids": torch.randint(0, vocab, (1, 16))}
    accepts = inspect.signature(inner.forward).parameters
    if "input_ids" in example and "attention_mask" in accepts:
        # (without a mask, newer transformers look for packed sequences with aten::diff,
        # which the converter has no rule for)
        example["attention_mask"] = torch.ones_like(example["input_ids"])
    names = list(example)

    class FirstOutput(torch.nn.Module):
        """The model's first output (no cache objects, which tracing cannot return)."""

        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, *arrays):
            given = dict(zip(names, arrays))
            if "use_cache" in accepts:
                given["use_cache"] = False
            return self.inner(**given)[0]

    return FirstOutput(inner).eval(), tuple(example[name] for name in names)


def check(name: str, folder: str) -> str:
    """``irrun validate`` and ``irrun compare`` on the model: one line of verdicts."""
    xml = os.path.join(folder, "model.xml")
    irrun = [sys.executable, "-m", "irrun"]
    validated = subprocess.run([*irrun, "validate", xml], capture_output=True, text=True)
    extra = []  # (a dynamic transformer is compared on its example's shapes)
    shapes = os.path.join(folder, "shapes.txt")
    if os.path.exists(shapes):
        with open(shapes) as file:
            for line in file.read().split():
                extra += ["--shape", line]
    compared = subprocess.run([*irrun, "compare", xml, *extra], capture_output=True, text=True)
    summary = (compared.stdout.strip().splitlines() or compared.stderr.strip().splitlines()
               or [""])[-1]  # fmt: skip
    return (f"validate exit {validated.returncode}, compare exit {compared.returncode}: "
            f"{summary.split(': ', 1)[-1]}")  # fmt: skip


def _matching(patterns) -> tuple[list, list]:
    """The architectures the patterns name, in the order given (each once), and the patterns
    that name none."""
    names, unknown = [], []
    for pattern in patterns:
        found = fnmatch.filter(ARCHITECTURES, pattern)
        if not found:
            unknown.append(pattern)
        names.extend(name for name in found if name not in names)
    return names, unknown


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help="these architectures only (shell patterns: 'hf:*')")  # fmt: skip
    parser.add_argument("--out", help="folder for the IR (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the IR after the run")
    parser.add_argument(
        "--variant",
        choices=VARIANTS,
        default="f16",
        help="weights and shapes the models are saved with (default: f16)",
    )
    parser.add_argument("--build", nargs=3, metavar=("NAME", "FOLDER", "VARIANT"),
                        help=argparse.SUPPRESS)  # fmt: skip
    args = parser.parse_args(argv)
    if args.build:  # (the child process that builds one model)
        build(*args.build)
        return 0
    names, unknown = (ARCHITECTURES, []) if not args.only else _matching(args.only)
    if unknown:
        parser.error(f"unknown architecture(s): {', '.join(unknown)}")
    root = args.out or tempfile.mkdtemp(prefix="irrun-sweep-")
    totals = {"built": 0, "valid": 0, "agree": 0}
    try:
        for name in names:
            folder = os.path.join(root, name.replace(":", "_"))
            os.makedirs(folder, exist_ok=True)
            started = time.perf_counter()
            made = subprocess.run([sys.executable, __file__, "--build", name, folder,
                                   args.variant], capture_output=True, text=True)  # fmt: skip
            if made.returncode != 0:
                reason = (made.stderr.strip().splitlines() or ["?"])[-1][:160]
                print(f"{name:<34} not built (the converter, or nncf): {reason}", flush=True)
                continue
            totals["built"] += 1
            line = check(name, folder)
            totals["valid"] += line.startswith("validate exit 0")
            totals["agree"] += ", compare exit 0:" in line
            print(f"{name:<34} {line} ({time.perf_counter() - started:.0f} s)", flush=True)
    finally:
        if not args.keep and not args.out:
            shutil.rmtree(root, ignore_errors=True)
    print(f"\n{len(names)} architectures ({args.variant}): {totals['built']} built, "
          f"{totals['valid']} validated without an error, {totals['agree']} compared "
          "without a disagreement")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
