"""The vocabulary synthetic pages are made of: tasks, datasets, metrics, method and model names.

Plain data only. Every list is ordered and fixed, so that a seed always draws the same names.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Metric:
    """A metric as a sota2 page declares it, with the range plausible values fall in."""

    name: str
    unit: str  # "PERCENT" or "SCALAR", as sota2 publishes it
    higher: bool  # True: higher is better
    low: float
    high: float
    decimals: int


def _m(name: str, unit: str, higher: bool, low: float, high: float, decimals: int) -> Metric:
    return Metric(name, unit, higher, low, high, decimals)


P, S = "PERCENT", "SCALAR"
UP, DOWN = True, False

# Per research area: its tasks, its datasets and the metrics its benchmarks declare.
DOMAINS: tuple[tuple[tuple[str, ...], tuple[str, ...], tuple[Metric, ...]], ...] = (
    (
        (
            "Text-to-Image Generation",
            "Image Editing",
            "Prompt-to-prompt semantic composition",
            "Image Inpainting",
            "Style Transfer",
            "Image Super-Resolution",
        ),
        ("MS COCO", "GenAI-Bench", "DrawBench", "PartiPrompts", "FFHQ", "CelebA-HQ", "ART500K"),
        (
            _m("FID", S, DOWN, 2.0, 60.0, 2),
            _m("CLIP Score", P, UP, 20.0, 40.0, 1),
            _m("CLIP-T (S*T)", P, UP, 15.0, 50.0, 1),
            _m("DINO-I (S*T)", P, UP, 20.0, 80.0, 1),
            _m("LPIPS", S, DOWN, 0.05, 0.6, 4),
            _m("PSNR", S, UP, 18.0, 38.0, 2),
            _m("SSIM", S, UP, 0.5, 0.98, 4),
            _m("Inception Score", S, UP, 5.0, 250.0, 2),
            _m("ImageReward", S, UP, 0.1, 1.5, 3),
        ),
    ),
    (
        (
            "Image Classification",
            "Object Detection",
            "Semantic Segmentation",
            "Instance Segmentation",
            "Few-Shot Image Classification",
            "Fine-Grained Image Classification",
        ),
        (
            "ImageNet",
            "CIFAR-10",
            "CIFAR-100",
            "ADE20K",
            "Cityscapes",
            "Pascal VOC 2012",
            "LVIS v1.0",
        ),
        (
            _m("Top-1 Accuracy", P, UP, 60.0, 92.0, 1),
            _m("Top-5 Accuracy", P, UP, 80.0, 99.5, 1),
            _m("mAP", P, UP, 20.0, 65.0, 1),
            _m("AP50", P, UP, 40.0, 85.0, 1),
            _m("mIoU", P, UP, 30.0, 85.0, 1),
            _m("Top-1 Error", P, DOWN, 8.0, 40.0, 1),
            _m("GFLOPs", S, DOWN, 0.5, 300.0, 2),
            _m("Params (M)", S, DOWN, 3.0, 900.0, 2),
        ),
    ),
    (
        (
            "Image-Text Retrieval",
            "Visual Question Answering",
            "Image Captioning",
            "Prompt Recovery",
            "Multimodal Generation",
            "Video Retrieval",
        ),
        ("Flickr30K", "LAION", "VQAv2", "GQA", "TextVQA", "NoCaps", "MSR-VTT", "ScienceQA"),
        (
            _m("Recall@1", P, UP, 30.0, 95.0, 1),
            _m("Recall@5", P, UP, 50.0, 99.0, 1),
            _m("Accuracy", P, UP, 40.0, 90.0, 1),
            _m("CIDEr", S, UP, 60.0, 150.0, 2),
            _m("BLEU-4", P, UP, 20.0, 45.0, 1),
            _m("CLIP I2 Score", S, UP, 50.0, 80.0, 2),
            _m("Perplexity", S, DOWN, 3.0, 60.0, 2),
            _m("KL Divergence", S, DOWN, 0.05, 3.0, 3),
        ),
    ),
    (
        (
            "Question Answering",
            "Natural Language Inference",
            "Text Summarization",
            "Machine Translation",
            "Code Generation",
            "Mathematical Reasoning",
        ),
        ("SQuAD v2.0", "MNLI", "XSum", "WMT14 English-German", "HumanEval", "GSM8K", "TriviaQA"),
        (
            _m("Exact Match", P, UP, 40.0, 92.0, 1),
            _m("F1 Score", P, UP, 45.0, 95.0, 1),
            _m("ROUGE-L", P, UP, 20.0, 50.0, 1),
            _m("BLEU", P, UP, 15.0, 45.0, 1),
            _m("Pass@1", P, UP, 5.0, 95.0, 1),
            _m("Pass@10", P, UP, 20.0, 99.0, 1),
            _m("Accuracy", P, UP, 30.0, 97.0, 1),
            _m("Perplexity", S, DOWN, 2.0, 40.0, 2),
        ),
    ),
    (
        ("Speech Recognition", "Speaker Verification", "Audio Classification", "Text-to-Speech"),
        ("LibriSpeech", "Common Voice", "VoxCeleb1", "AudioSet", "ESC-50", "LJSpeech", "TIMIT"),
        (
            _m("Word Error Rate", P, DOWN, 1.5, 30.0, 1),
            _m("Character Error Rate", P, DOWN, 0.5, 15.0, 1),
            _m("EER", P, DOWN, 0.3, 10.0, 2),
            _m("mAP", P, UP, 20.0, 55.0, 1),
            _m("Accuracy", P, UP, 60.0, 98.0, 1),
            _m("MOS", S, UP, 2.5, 4.7, 2),
            _m("Real-Time Factor", S, DOWN, 0.01, 1.2, 3),
        ),
    ),
    (
        (
            "Novel View Synthesis",
            "Monocular Depth Estimation",
            "Optical Flow Estimation",
            "Action Recognition",
            "Video Generation",
        ),
        ("KITTI", "NYU Depth v2", "Sintel", "Kinetics-400", "UCF101", "LLFF", "DTU"),
        (
            _m("PSNR", S, UP, 20.0, 36.0, 2),
            _m("SSIM", S, UP, 0.6, 0.98, 4),
            _m("LPIPS", S, DOWN, 0.03, 0.5, 4),
            _m("AbsRel", S, DOWN, 0.05, 0.3, 4),
            _m("RMSE", S, DOWN, 0.2, 6.0, 3),
            _m("EPE", S, DOWN, 0.5, 8.0, 2),
            _m("Top-1 Accuracy", P, UP, 55.0, 90.0, 1),
            _m("FVD", S, DOWN, 80.0, 900.0, 1),
        ),
    ),
)

TASK_MODIFIERS = ("", "", "", "", "Zero-Shot ", "Few-Shot ", "Unsupervised ", "Long-Tailed ")
SPLITS = ("", "", "", "test", "val", "test-dev")

# Method names: some well-known names, then synthetic ones built as prefix + root + variant.
# Prefixes and roots are single capitalised words, so every name is distinct even after case
# and punctuation are folded.
FAMOUS_METHODS = (
    "ResNet-50", "ViT-B/16", "BERT-base", "Swin-T", "DINOv2", "T5-Large", "LLaMA-2 7B",
    "Stable Diffusion v1.5", "ConvNeXt-T", "Mask R-CNN", "DeiT-S", "wav2vec 2.0", "Whisper Large",
    "NeRF", "RAFT", "SDXL", "DreamLLM", "Chameleon", "Emu3", "GRAPHGPT-O",
)  # fmt: skip
METHOD_PREFIXES = (
    "Deep", "Dense", "Sparse", "Uni", "Omni", "Meta", "Hyper", "Flow", "Diff", "Vision",
    "Mask", "Point", "Graph", "Trans", "Auto", "Cross", "Dual", "Multi", "Neural", "Latent",
    "Spectral", "Fast", "Light", "Mobile", "Robust", "Contrast", "Proto", "Cascade", "Adaptive",
    "Tiny", "Global", "Local", "Mix", "Fusion", "Span", "Token", "Prompt", "Hier", "Scale",
    "Glance",
)  # fmt: skip
METHOD_ROOTS = (
    "Net", "Former", "GAN", "Diffusion", "Seg", "Det", "Match", "Mixer", "Fuse", "Align",
    "Gen", "Rec", "Track", "Depth", "Pose", "Caption", "Speech", "Vox", "Edit", "Painter",
    "Sampler", "Encoder", "Adapter", "LM", "Agent", "Booster", "Prior", "Field", "Router",
    "Distill",
)  # fmt: skip
METHOD_VARIANTS = (
    "", "-v2", "-L", "-B", "-XL", " (ViT-B/16)", " (ResNet-50)", "-v3", " 2", "-Large", "-Base",
    "-Tiny", "-S", "-H",
)  # fmt: skip
GITHUB_ORGS = (
    "facebookresearch",
    "google-research",
    "microsoft",
    "openai",
    "baaivision",
    "OpenGVLab",
    "huggingface",
    "NVlabs",
    "salesforce",
    "mit-han-lab",
    "THUDM",
)

# Evaluation configuration keys and the values they take; "Shots" is published as a JSON number.
CONFIG_KEYS: tuple[tuple[str, tuple[str | int, ...]], ...] = (
    ("Model", ("SANA1.5", "FLUX.1-dev", "FLUX.1-schnell", "Qwen-Image", "SD-XL", "PixArt-α")),
    ("Steps", ("20", "50", "100", "250")),
    ("Resolution", ("256x256", "512x512", "1024x1024")),
    ("Backbone", ("ResNet-50", "ViT-B/16", "ViT-L/14", "Swin-B")),
    ("Shots", (0, 1, 5, 10)),
    ("Mask", ("true", "false")),
    ("Type", ("Hard", "Soft")),
)

DESCRIPTIONS = (
    "Results for {task} on {where}, reported with {metrics}.",
    "Evaluation of {task} methods on {where}, compared by {metrics}.",
    "Benchmark of {task} on {where}; papers report {metrics}.",
    "How well methods perform {task} on {where}, as measured by {metrics}.",
)

# AI Benchmark Radar: benchmark names, dual-encoder models and generative models.
RADAR_PREFIXES = (
    "Compo",
    "Bind",
    "Relat",
    "Attri",
    "Scene",
    "Spatial",
    "Count",
    "Role",
    "Swap",
    "Pair",
    "Contrast",
    "Order",
    "Ground",
    "Neg",
    "Detail",
    "Hard",
    "Fine",
    "Verb",
)
RADAR_SUFFIXES = ("SET", "Bench", "Eval", "Probe", "Test", "QA", "Match", "Pairs", "Score")
ENCODER_FAMILIES = (
    "CLIP",
    "OpenCLIP",
    "SigLIP",
    "SigLIP-2",
    "EVA-02",
    "DFN",
    "MetaCLIP",
    "MetaCLIP-2",
    "NegCLIP",
    "CLoVe",
    "DreamLIP",
    "Long-CLIP",
    "FLAIR",
    "TULIP",
)
# (size, patch, suffix): the full name is "<family> <size>/<patch><suffix>".
ENCODER_SIZES = (
    ("B", "32", ""),
    ("B", "16", " (OpenAI)"),
    ("L", "14", " (LAION-2B)"),
    ("L", "16", "-384"),
    ("H", "14", " (LAION-2B)"),
    ("SO400M", "14", ""),
    ("g", "14", " (DataComp-1B)"),
)
OPEN_WEIGHT = "Open-weight (caption log-likelihood)"
FRONTIER_API = "Frontier API (prompted pairwise, counterbalanced)"
GENERATIVE_MODELS = (
    ("BLIP-2 (OPT-2.7B)", OPEN_WEIGHT),
    ("LLaVA-1.6 (Mistral-7B)", OPEN_WEIGHT),
    ("Qwen2-VL (7B Instruct)", OPEN_WEIGHT),
    ("InternVL2 (8B)", OPEN_WEIGHT),
    ("PaliGemma (3B)", OPEN_WEIGHT),
    ("Gemini 2.5 Flash", FRONTIER_API),
    ("Claude Haiku 4.5", FRONTIER_API),
    ("Claude Sonnet 4.6", FRONTIER_API),
    ("GPT-4o", FRONTIER_API),
)
EDIT_TYPES = (
    "modify_color",
    "modify_pattern",
    "modify_material",
    "modify_shape",
    "modify_object",
    "swap_color",
    "swap_material",
    "modify_count",
    "modify_spatial",
    "swap_spatial",
    "modify_action",
    "modify_pose",
    "modify_state",
    "swap_role",
)
