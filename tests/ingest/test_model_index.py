"""The model-index parser: figures of real model cards as published, every sample card loaded or
refused with its place and problem, and the cards told apart from every other format."""

from __future__ import annotations

import csv
import hashlib
import io
from pathlib import Path

import pytest
from support import run_cli

from benchgraph import iris
from benchgraph import vocab as V
from benchgraph.names import normalise
from ingest import model_index, model_index_results, reading
from ingest.records import (
    Benchmark,
    Page,
    PageError,
    PageWarning,
    PaperRef,
    ResultRecord,
    Setting,
)

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / ".." / "shared" / "data"
CARDS = DATA / "hf_model_index"
SEEDS = REPO / ".." / "shared" / "seeds"
OWN = REPO / "tests" / "data" / "model-index"
EXAMPLES = REPO / "examples"
BENCHMARK = "https://w3id.org/benchgraph/id/benchmark/"


def card(name: str) -> Page:
    """The parsed sample ``name``: a card of ../shared/data, or of tests/data/model-index."""
    found = OWN / name if (OWN / name).exists() else CARDS / name
    if not found.exists():
        pytest.skip("the model-card samples (../shared/data/hf_model_index) are not here")
    return model_index.parse(found.read_bytes(), name)


def at(page: Page, location: str) -> ResultRecord:
    (found,) = [r for r in page.results if r.location == location]
    return found


def spot(results: int, metric: int) -> str:
    return f"model-index[0].results[{results}].metrics[{metric}]"


def hashed(data: bytes) -> str:
    """The key of a card of unknown repository whose bytes are ``data``."""
    return f"model-index/sha256-{hashlib.sha256(data).hexdigest()[:16]}"


def content_id(page: Page, result: ResultRecord) -> str:
    """The ID a result is given from what it states (a repeat adds ``/2``, ``/3``, ...)."""
    b = result.benchmark
    assert b is not None
    names = (result.method, b.task, b.dataset, b.split, result.metric)
    return "/".join([page.key, *(normalise(name) for name in names if name)])


SERAPH = "idx19518692254__Weyaxi__Seraph-7B.yaml"
FALCON = "asg__tiiuae__falcon-mamba-7b.yaml"
LEADERBOARD = ("document", "Open LLM Leaderboard")
# (file, place, metric, value, cell, unit, direction, inferred, benchmark, verified, reporter)
FIGURES = [
    (SERAPH, spot(0, 0), "normalized accuracy", "67.83", None, None, "higher", True,
     Benchmark("Text Generation", "AI2 Reasoning Challenge (25-Shot)", "test"), None, LEADERBOARD),
    (SERAPH, spot(3, 0), "mc2", "59.49", None, None, None, False,
     Benchmark("Text Generation", "TruthfulQA (0-shot)", "validation"), None, LEADERBOARD),
    (FALCON, spot(5, 0), "accuracy", "14.47", None, None, "higher", True,
     Benchmark("Text Generation", "MMLU-PRO (5-shot)", "test"), None, LEADERBOARD),
    ("asg__bigscience__bloom.yaml", spot(0, 0), "pass@1", "0.15542682926829265", None, None,
     "higher", True, Benchmark("text-generation", "humaneval"), False,
     ("model card", "bloom model card")),
    ("cs577__51la5__distilbert-base-NER.yaml", spot(0, 4), "loss", "0.06707527488470078", None,
     None, "lower", True, Benchmark("Token Classification", "conll2003", "validation"), True,
     ("model card", "elastic/distilbert-base-uncased-finetuned-conll03-english model card")),
    ("cs577__0xRiku__ppo-LunarLander-v2.yaml", spot(0, 0), "mean_reward", "245.37",
     "245.37 +/- 48.64", None, "higher", True,
     Benchmark("reinforcement-learning", "LunarLander-v2"), False,
     ("model card", "PPO model card")),
    ("cs577__0xkrm__q-Taxi-v3.yaml", spot(0, 0), "mean_reward", "-102.93", "-102.93 +/- 209.24",
     None, "higher", True, Benchmark("reinforcement-learning", "Taxi-v3"), False,
     ("model card", "q-Taxi-v3 model card")),
    # The dataset's split is test; "Val PER" names its own split.
    ("cs577__Clementapa__wav2vec2-base-960h-phoneme-reco-dutch.yaml", spot(0, 1), "Val PER",
     "16.18", None, None, "lower", True,
     Benchmark("Automatic Phoneme Recognition", "CommonVoice (clean)", "validation"), None,
     ("model card", "wav2vec2-base-960h-phoneme-reco-dutch model card")),
    ("cs577__Clementapa__wav2vec2-base-960h-phoneme-reco-dutch.yaml", spot(0, 0), "Test PER",
     "20.83", None, None, "lower", True,
     Benchmark("Automatic Phoneme Recognition", "CommonVoice (clean)", "test"), None,
     ("model card", "wav2vec2-base-960h-phoneme-reco-dutch model card")),
    # No split on the dataset, one in the name; "ROGUE" (sic) is in no direction table.
    ("saran__Kirili4ik__mbart_ruDialogSum.yaml", spot(0, 3), "Test ROGUE-L", "28", None, None,
     None, False,
     Benchmark("Abstractive Dialogue Summarization", "SAMSum Corpus (translated to Russian)",
               "test"), None, ("model card", "mbart_ruDialogSum model card")),
    # The name "SER" is in no table; the type "Slot Error Rate" is.
    ("cs577__ConvLab__t5-small-nlg-all-multiwoz21.yaml", spot(0, 0), "SER", "5.4", None, None,
     "lower", True, Benchmark("natural language generation", "MultiWOZ 2.1", "test"), None,
     ("model card", "t5-small-nlg-all-multiwoz21 model card")),
    # "pass@100" is pass@k at a cut-off of 100: the table has it.
    ("cs577__bigcode__santacoder-megatron.yaml", spot(3, 2), "pass@100", "0.70", None, None,
     "higher", True, Benchmark("text-generation", "MultiPL MBPP (Javascript)"), False,
     ("model card", "SantaCoder model card")),
    ("saran__hyperion-ml__voxceleb-v1.1-fbank80_stmn_lresnet34_e256_arcs30m0.3_do0_adam_lr0.05_b512"
     ".v1.yaml", spot(0, 0), "EER Vox1-O", "2.11", None, None, "lower", True,
     Benchmark("Speaker Verification", "Voxceleb1"), None,
     ("model card", "voxceleb-v1.1-fbank80_stmn_lresnet34_e256_arcs30m0.3_do0_adam_lr0.05_b512.v1"
      " model card")),
    ("cs577__Intel__dpt-large.yaml", spot(0, 0), "Zero-shot transfer", "10.82", None, None, None,
     False, Benchmark("Monocular Depth Estimation", "MIX 6"), False,
     ("model card", "dpt-large model card")),
    # The card of tests/data: a percent value, a percent in the name, a paper on arXiv.
    ("README.md", spot(0, 0), "Top-1 Accuracy", "81.50", "81.50%", "%", "higher", True,
     Benchmark("Image Classification", "ImageNet-1k", "validation"), False,
     ("paper", "TinyViT paper")),
    ("README.md", spot(0, 1), "Top-5 Accuracy (%)", "95.7", None, "%", "higher", True,
     Benchmark("Image Classification", "ImageNet-1k", "validation"), None,
     ("paper", "TinyViT paper")),
    ("README.md", spot(1, 0), "Test Accuracy", "0.9120", None, None, "higher", True,
     Benchmark("image-classification", "CIFAR-100", "test"), True,
     ("model card", "tiny-vit-demo model card")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "place", "metric", "value", "cell", "unit", "direction", "inferred", "benchmark",
     "verified", "reporter"),
    FIGURES,
    ids=[f"{name[:24]}-{figure[2]}" for name, *figure in FIGURES],
)  # fmt: skip
def test_a_figure_as_published(
    name: str,
    place: str,
    metric: str,
    value: str,
    cell: str | None,
    unit: str | None,
    direction: str | None,
    inferred: bool,
    benchmark: Benchmark,
    verified: bool | None,
    reporter: tuple[str, str],
) -> None:
    page = card(name)
    result = at(page, place)
    assert (result.metric, result.value, result.cell) == (metric, value, cell)
    assert result.benchmark == benchmark
    assert result.verified is verified
    assert (result.reported_in.kind, result.reported_in.title) == reporter
    assert result.source_id == content_id(page, result)
    decl = page.metric(metric, benchmark)
    assert (decl.unit, decl.direction, decl.direction_inferred) == (unit, direction, inferred)


def test_a_value_with_a_spread_keeps_it() -> None:
    spread = at(card("cs577__0xRiku__ppo-LunarLander-v2.yaml"), spot(0, 0)).spread
    assert spread is not None
    assert (spread.half_width, spread.meaning) == ("48.64", "not stated")


def test_a_source_on_arxiv_is_a_paper_and_another_a_document() -> None:
    arxiv = at(card("README.md"), spot(0, 0)).reported_in
    assert (arxiv.arxiv_id, arxiv.url) == ("2207.10666", "https://arxiv.org/abs/2207.10666v1")
    board = at(card(SERAPH), spot(0, 0)).reported_in
    assert board.arxiv_id is None
    assert board.url == (
        "https://huggingface.co/spaces/HuggingFaceH4/open_llm_leaderboard?query=Weyaxi/Seraph-7B"
    )
    own = at(card("README.md"), spot(1, 0)).reported_in
    digest = hashlib.sha256((OWN / "README.md").read_bytes()).hexdigest()
    assert (own.url, own.arxiv_id, own.source_id) == (None, None, f"sha256-{digest[:16]}")


SETTINGS = [
    (SERAPH, spot(0, 0), [("dataset type", "ai2_arc"), ("dataset config", "ARC-Challenge"),
                          ("dataset args.num_few_shot", "25"), ("metric type", "acc_norm")]),
    ("cs577__Graphcore__gptj-mnli.yaml", spot(0, 0),
     [("dataset type", "glue"), ("dataset args", "mnli"), ("metric config", "mnli_mismatched")]),
    ("cs577__ConvLab__t5-small-nlg-all-multiwoz21.yaml", spot(0, 0),
     [("task type", "text2text-generation"), ("dataset type", "ConvLab/multiwoz21"),
      ("dataset revision", "5f55375edbfe0270c20bcf770751ad982c0e6614"),
      ("metric type", "Slot Error Rate")]),
    ("cs577__Sociovestix__lenu_JP.yaml", spot(0, 1),
     [("dataset type", "Sociovestix/lenu"), ("dataset config", "JP"),
      ("dataset revision", "fbe0b4b5b8d6950c10f5710f2c987728635a4afe"),
      ("metric type", "f1"), ("metric args.average", "macro")]),
    ("saran__Helsinki-NLP__opus-mt-tc-base-gmw-gmw.yaml", spot(0, 0),
     [("task type", "translation"), ("task args", "afr-deu"), ("dataset type", "flores_101"),
      ("dataset args", "afr deu devtest")]),  # the type "bleu" is the name "BLEU"
    # SGPT names its metrics by type alone: no metric type to keep.
    ("cs577__Muennighoff__SGPT-1.3B-weightedmean-msmarco-specb-bitfit.yaml", spot(0, 0),
     [("dataset type", "mteb/amazon_counterfactual"), ("dataset config", "en"),
      ("dataset revision", "2d8a100785abf0ae21420d2a55b0c56e3e1ea996")]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "place", "settings"), SETTINGS, ids=[s[0][:24] for s in SETTINGS])
def test_configuration_settings(name: str, place: str, settings: list[tuple[str, str]]) -> None:
    config = at(card(name), place).configuration
    assert config.settings == tuple(Setting(key, value) for key, value in settings)


def test_metric_args_as_a_list_of_mappings_and_their_numbers_as_written() -> None:
    name = "saran__kingabzpro__wav2vec2-large-xls-r-1b-Swedish.yaml"
    settings = dict((s.key, s.value) for s in at(card(name), spot(0, 0)).configuration.settings)
    assert settings["metric args.learning_rate"] == "7.5e-05"
    assert settings["metric args.optimizer"] == "Adam with betas=(0.9,0.999) and epsilon=1e-08"
    assert len([key for key in settings if key.startswith("metric args.")]) == 11


ARGS = """model-index:
- name: x
  results:
  - task: {type: t}
    dataset:
      type: d
      args: ARGS
    metrics:
    - {type: acc, value: 1}
"""


def test_nested_args_are_settings_and_args_nested_in_themselves_are_refused() -> None:
    nested = ARGS.replace("ARGS", "{a: 1, b: [2, 3], c: {d: true}, e: null}").encode()
    assert model_index.parse(nested, "a.yaml").results[0].configuration.settings == (
        Setting("dataset args.a", "1"),
        Setting("dataset args.b[0]", "2"),
        Setting("dataset args.b[1]", "3"),
        Setting("dataset args.c.d", "true"),
    )
    for args, problem in (("&a [1, *a]", "holds more than 200 settings"),
                          ("&a [*a]", "holds a list or mapping nested in itself")):  # fmt: skip
        with pytest.raises(PageError) as refused:
            model_index.parse(ARGS.replace("ARGS", args).encode(), "a.yaml")
        assert refused.value.location == "model-index[0].results[0].dataset.args"
        assert refused.value.problem.startswith(problem)


def test_the_page_fields_of_a_card() -> None:
    page = card(SERAPH)
    assert (page.format, page.key) == ("model-index", hashed((CARDS / SERAPH).read_bytes()))
    assert page.title == "Seraph-7B"
    assert (page.url, page.data_updated, page.origin) == (None, None, SERAPH)
    assert page.publisher == "Hugging Face Hub"
    assert (page.declared_count, page.total_count, page.warnings) == (6, 6, ())
    assert page.benchmark == at(page, spot(0, 0)).benchmark
    assert page.primary_metric == "normalized accuracy"
    assert len(page.benchmarks) == 6
    assert all(decl.benchmark is not None for decl in page.metrics)
    for result in page.results:
        assert result.method == "Seraph-7B"
        assert result.benchmark is not None
        page.metric(result.metric, result.benchmark)  # declared for its own benchmark


def test_many_benchmarks_and_each_metric_declared_once_per_benchmark() -> None:
    page = card("cs577__Muennighoff__SGPT-1.3B-weightedmean-msmarco-specb-bitfit.yaml")
    assert (len(page.results), page.total_count, len(page.benchmarks)) == (990, 990, 68)
    keys = [(decl.benchmark, decl.name) for decl in page.metrics]
    assert len(keys) == len(set(keys))


def test_a_newer_version_keeps_its_key_only_when_its_repository_is_known() -> None:
    path = CARDS / SERAPH
    if not path.exists():
        pytest.skip("the model-card samples (../shared/data/hf_model_index) are not here")
    data = path.read_bytes()
    newer = data.replace(b"value: 67.83", b"value: 68.01").replace(b"\n", b"\r\n")
    old, new = model_index.parse(data, "a.yaml"), model_index.parse(newer, "b.yaml")
    assert (old.key, new.key) == (hashed(data), hashed(newer))  # two sources, as far as known
    repo = "Weyaxi/Seraph-7B"
    old = model_index.parse(data, "a.yaml", repository=repo)
    new = model_index.parse(newer, "b.yaml", repository=repo, revision="main")
    assert new.key == old.key == "model-index/Weyaxi/Seraph-7B" and new.sha256 != old.sha256
    assert at(new, spot(0, 0)).value == "68.01"
    assert at(new, spot(0, 0)).source_id == at(old, spot(0, 0)).source_id


def test_a_result_id_follows_the_result_not_its_place() -> None:
    text = (OWN / "README.md").read_text(encoding="utf-8")
    first, second = text.index("  - task:"), text.index("  - task:", text.index("  - task:") + 1)
    end = text.index("---", second)
    moved = text[:first] + text[second:end] + text[first:second] + text[end:]
    repo = "example/tiny-vit-demo"
    before = model_index.parse(text.encode(), "README.md", repository=repo)
    after = model_index.parse(moved.encode(), "README.md", repository=repo)
    assert {r.source_id: r.value for r in before.results} == {
        r.source_id: r.value for r in after.results
    }
    assert at(after, spot(0, 0)).source_id == (
        "model-index/example/tiny-vit-demo/tiny-vit-demo/image-classification/cifar-100/test/"
        "test-accuracy"
    )


def test_a_repeated_result_is_numbered_in_file_order() -> None:
    one = "    - {type: acc, value: 1}\n"
    block = ARGS.replace("ARGS", "{}").replace(one, one + one.replace("1", "2"))
    page = model_index.parse(block.encode(), "a.yaml", repository="o/n")
    assert [(r.source_id, r.value) for r in page.results] == [
        ("model-index/o/n/x/t/d/acc", "1"),
        ("model-index/o/n/x/t/d/acc/2", "2"),
    ]


def test_warnings_name_the_place_in_file_order() -> None:
    warned = card("cs577__Clementapa__wav2vec2-base-960h-phoneme-reco-dutch.yaml").warnings
    assert warned == (
        PageWarning(
            "cs577__Clementapa__wav2vec2-base-960h-phoneme-reco-dutch.yaml",
            spot(0, 1),
            "the metric's name names the validation split, the dataset's split is 'test'",
            "the result is placed on the validation split",
        ),
    )
    page = card("README.md")
    assert [str(w) for w in page.warnings] == [
        "README.md: model-index[0].results[0].metrics[2].value: skipped: no value ('-') "
        "(a value is one number)"
    ]
    assert (page.declared_count, page.total_count) == (3, 4)


def test_the_card_body_is_not_read() -> None:
    page = card("README.md")
    assert {r.method for r in page.results} == {"tiny-vit-demo"}  # not the body's example


HINT = model_index_results.HINT
RESULT_HINT = model_index_results.RESULT_HINT
# Every sample card: the results it loads, or where and why it is refused.
OUTCOMES: dict[str, int | tuple[str, str, str]] = {
    "asg__WizardLMTeam__WizardCoder-15B-V1.0.yaml": 1,
    "asg__bigscience__bloom.yaml": 3,
    "asg__dalle-mini__dalle-mini.yaml": (
        "model-index[0].results", "lists no results", "nothing to load"),
    "asg__tiiuae__falcon-mamba-7b.yaml": 6,
    "cs577__0xRiku__ppo-LunarLander-v2.yaml": 1,
    "cs577__0xkrm__q-Taxi-v3.yaml": 1,
    "cs577__51la5__distilbert-base-NER.yaml": 5,
    "cs577__BirdL__OLM-GPT2-Yannic.yaml": 2,
    "cs577__Clementapa__wav2vec2-base-960h-phoneme-reco-dutch.yaml": 2,
    "cs577__ConvLab__t5-small-nlg-all-multiwoz21.yaml": 2,
    "cs577__Graphcore__gptj-mnli.yaml": 1,
    "cs577__IIC__roberta-base-bne-ranker.yaml": 1,
    "cs577__Ilyes__wav2vec2-large-xlsr-53-french_punctuation.yaml": (
        "model-index", "no metric of the card could be read",
        f"{spot(0, 0)}.values: skipped: 'values' (a list) where one 'value' should be"),
    "cs577__Intel__dpt-large.yaml": 1,
    "cs577__JeremiahZ__roberta-base-qqp.yaml": 8,
    "cs577__Jiva__xlm-roberta-large-it-mnli.yaml": 11,
    "cs577__KennethEnevoldsen__dfm-bert-large-v1-2048bsz-1Msteps.yaml": (
        "model-index[0].results[0]", "has a 'datasets' key where 'dataset' should be",
        RESULT_HINT),
    "cs577__MIT__ast-finetuned-speech-commands-v2.yaml": 1,
    "cs577__MLRS__BERTu.yaml": 6,
    "cs577__Muennighoff__SGPT-1.3B-weightedmean-msmarco-specb-bitfit.yaml": 990,
    "cs577__Scrya__whisper-medium-id.yaml": 4,
    "cs577__Shobhank-iiitdwd__Distiled-roberta-squad2-QA.yaml": 2,
    "cs577__Sociovestix__lenu_JP.yaml": 2,
    "cs577__UKP-SQuARE__distilroberta-squad.yaml": 2,
    "cs577__Yelyzaveta__facebook-bart-large-cnn.yaml": 6,
    "cs577__abhishek__autotrain_cifar10_vit_base.yaml": 12,
    "cs577__bigcode__santacoder-megatron.yaml": 22,
    "cs577__halflings__house_price_prediction_dev.yaml": 2,
    "cs577__mhyatt000__YOLOv5.yaml": 1,
    "cs577__osanseviero__test_metrics.yaml": 3,
    "cs577__radbrt__nb_nocy_trf.yaml": (
        "model-index[0].results[0]", "has a 'tasks' key where 'task' should be", RESULT_HINT),
    "cs577__uisikdag__hardhat.yaml": ("model-index[0].results[0]", "has no dataset", RESULT_HINT),
    "idx19518692254__Weyaxi__Seraph-7B.yaml": 6,
    "saran__Babelscape__rebel-large.yaml": 2,
    "saran__Helsinki-NLP__opus-mt-tc-base-gmw-gmw.yaml": 62,
    "saran__Kirili4ik__mbart_ruDialogSum.yaml": 4,
    "saran__elgeish__gpt2-medium-arabic-poetry.yaml": 1,
    "saran__hyperion-ml__voxceleb-v1.1-fbank80_stmn_lresnet34_e256_arcs30m0.3_do0_adam_lr0.05"
    "_b512.v1.yaml": 9,
    "saran__kingabzpro__wav2vec2-large-xls-r-1b-Swedish.yaml": 4,
    "saran__projecte-aina__roberta-base-ca-cased-sts.yaml": 1,
    # The samples of tests/data/model-index.
    "README.md": 3,
    "not-a-list.yaml": ("model-index", "is a mapping, not a list of models", HINT),
    "missing-results.yaml": ("model-index[0]", "has no results list", HINT),
    "tasks-for-results.yaml": ("model-index[0]", "has a 'tasks' list where 'results' should be",
                               HINT),
    "no-value.yaml": 1,
    "Phind-CodeLlama-34B-v1.md": 1,
    "Phind-CodeLlama-34B-v2.md": 1,
    "unreadable.yaml": ("model-index", "no metric of the card could be read",
                        f"{spot(0, 0)}.value: skipped: no value ('n/a')"),
    "bad-syntax.yaml": ("line 7, column 12", "not valid YAML: did not find expected ',' or '}'",
                        ""),
}  # fmt: skip
SAMPLES = sorted(CARDS.glob("*.yaml")) + sorted(OWN.iterdir())


def test_every_sample_has_a_recorded_outcome() -> None:
    if not CARDS.is_dir():
        pytest.skip("the model-card samples (../shared/data/hf_model_index) are not here")
    assert sorted(path.name for path in SAMPLES) == sorted(OUTCOMES)


@pytest.mark.parametrize("path", SAMPLES, ids=[path.name[:40] for path in SAMPLES])
def test_each_sample_loads_or_is_refused_as_recorded(path: Path) -> None:
    expected = OUTCOMES[path.name]
    if isinstance(expected, int):
        page = model_index.parse(path.read_bytes(), path.name)
        assert page.declared_count == len(page.results) == expected
        return
    with pytest.raises(PageError) as refused:
        model_index.parse(path.read_bytes(), path.name)
    error = refused.value
    assert (error.origin, error.location, error.problem, error.hint) == (path.name, *expected)


def edited_card(old: str, new: str) -> bytes:
    text = (OWN / "README.md").read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    return text.replace(old, new).encode("utf-8")


REFUSED_EDITS = [
    # YAML finds the error on the next line, numbered as in the card.
    ("      split: validation\n", "      split: [validation\n", "line 19, column 12",
     "not valid YAML: did not find expected ',' or ']'"),
    ("- name: tiny-vit-demo\n", "- name:\n", "model-index[0]", "has no name"),
    ("      name: ImageNet-1k\n", "      name: [ImageNet, 1k]\n",
     "model-index[0].results[0].dataset.name", "is a list, not text"),
    ("    - type: accuracy\n      value: 0.9120\n      name: Test Accuracy\n",
     "    - value: 0.9120\n",
     spot(1, 0), "names neither a type nor a name"),
    ("      verified: true\n", "      verified: 'yes'\n", "", ""),
    ("  - task:\n      type: image-classification\n    dataset:\n      type: cifar100\n",
     "  - task: image-classification\n    dataset:\n      type: cifar100\n",
     "model-index[0].results[1].task", "is the text 'image-classification', not a mapping"),
    ("      name: TinyViT paper\n      url: https://arxiv.org/abs/2207.10666v1\n",
     "      year: 2022\n", "model-index[0].results[0].source", "names neither a name nor a URL"),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "location", "problem"), REFUSED_EDITS)
def test_an_edited_card_is_refused_at_the_place(
    old: str, new: str, location: str, problem: str
) -> None:
    data = edited_card(old, new)
    if not problem:  # a verified flag that is not true or false: kept as unknown, with a warning
        page = model_index.parse(data, "README.md")
        assert at(page, spot(1, 0)).verified is None
        assert page.warnings[-1].location == f"{spot(1, 0)}.verified"
        assert page.warnings[-1].problem == "is the text 'yes', not true or false"
        return
    with pytest.raises(PageError) as refused:
        model_index.parse(data, "README.md")
    assert (refused.value.location, refused.value.problem) == (location, problem)


def test_text_that_is_not_utf8_or_has_no_model_index_is_refused() -> None:
    with pytest.raises(PageError, match=r"^card\.yaml: byte 21: not UTF-8 text"):
        model_index.parse(b"model-index:\n- name: \xff\xfe\n", "card.yaml")
    with pytest.raises(PageError, match=r"^card\.md: no top-level 'model-index' key"):
        model_index.parse(b"---\nlicense: mit\n---\n\nmodel-index:\n- name: x\n", "card.md")
    with pytest.raises(PageError, match=r"^card\.yaml: model-index: lists no models"):
        model_index.parse(b"model-index: []\n", "card.yaml")


def sample_files() -> list[Path]:
    """Every file of every format in ../shared/data and the seeds, the examples and the
    samples of tests/data (the format's own among them)."""
    found = [path for path in DATA.rglob("*") if path.is_file()] if DATA.is_dir() else []
    found += sorted(SEEDS.iterdir()) if SEEDS.is_dir() else []
    found += [path for path in (REPO / "tests" / "data").rglob("*") if path.is_file()]
    return sorted(found + sorted(EXAMPLES.iterdir()))


def test_sniff_claims_the_cards_and_nothing_else() -> None:
    files = sample_files()
    if not CARDS.is_dir() or not SEEDS.is_dir():
        pytest.skip("the samples (../shared/data, ../shared/seeds) are not here")
    claimed = set()
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        if model_index.sniff(text):
            claimed.add(path.resolve())
    claims = REPO / "tests" / "data" / "claims"
    mine = {
        path.resolve() for path in [*CARDS.glob("*.yaml"), *OWN.iterdir(), *claims.glob("card-*")]
    }
    assert claimed == mine
    assert len(files) > len(mine) + 50  # the other formats were there to be told apart


@pytest.mark.parametrize(
    "text",
    [
        "# Writing a model card\n\nPut this in the front matter:\n\n```yaml\nmodel-index:\n"
        "- name: my-model\n```\n",
        "---\nlicense: mit\n---\n\nmodel-index:\n- name: x\n",
        "model-index-ish: true\n",
        "  model-index:\n",
        "",
        "---",
        "\x00\xff binary",
    ],
)
def test_sniff_declines_text_that_only_mentions_a_model_index(text: str) -> None:
    assert model_index.sniff(text) is False


def test_sniff_accepts_a_card_with_a_bom_and_windows_line_ends() -> None:
    text = "\ufeff" + (OWN / "README.md").read_text(encoding="utf-8").replace("\n", "\r\n")
    assert model_index.sniff(text)
    assert len(model_index.parse(text.encode("utf-8"), "README.md").results) == 3


def test_the_loader_reads_a_card_as_a_model_index() -> None:
    page = reading.read_page((OWN / "README.md").read_bytes(), "README.md")
    assert page.format == "model-index" and page.key.startswith("model-index/")


# End to end: cards through the command line into an embedded store, and read back.
LOADED = [
    SERAPH,
    FALCON,
    "cs577__Clementapa__wav2vec2-base-960h-phoneme-reco-dutch.yaml",
    "cs577__0xRiku__ppo-LunarLander-v2.yaml",
    "cs577__radbrt__nb_nocy_trf.yaml",  # refused
]


@pytest.fixture(scope="module")
def cards_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not CARDS.is_dir():
        pytest.skip("the model-card samples (../shared/data/hf_model_index) are not here")
    store = tmp_path_factory.mktemp("cards") / "store"
    files = [str(CARDS / name) for name in LOADED] + [str(OWN / "README.md")]
    done = run_cli("ingest", *files, store=store)
    assert done.returncode == 1, done.stderr  # one card refused, the others loaded
    assert done.stdout.startswith("5 loaded, 0 unchanged, 1 refused, 0 unreadable;")
    refusal = (
        f"refused: {CARDS / 'cs577__radbrt__nb_nocy_trf.yaml'}: model-index[0].results[0]: has "
        "a 'tasks' key where 'task' should be"
    )
    assert refusal in done.stderr
    return store


def leaderboard(store: Path, *params: str) -> list[dict[str, str]]:
    args = [arg for param in params for arg in ("--param", param)]
    done = run_cli("query", "leaderboard", *args, "--format", "csv", store=store)
    assert done.returncode == 0, done.stderr
    return list(csv.DictReader(io.StringIO(done.stdout)))


def test_a_leaderboard_of_cards_shows_each_figure_as_published(cards_store: Path) -> None:
    (arc,) = leaderboard(cards_store, "benchmark=AI2 Reasoning Challenge (25-Shot)")
    assert (arc["methodLabel"], arc["value"], arc["metricLabel"]) == (
        "Seraph-7B", "67.83", "normalized accuracy")  # fmt: skip
    assert (arc["unit"], arc["direction"], arc["rank"]) == (V.NoUnitStated, V.HigherIsBetter, "1")
    assert arc["paper"].endswith("/document/open-llm-leaderboard")
    (mmlu,) = leaderboard(cards_store, "benchmark=MMLU-PRO (5-shot)")
    assert (mmlu["methodLabel"], mmlu["value"]) == ("falcon-mamba-7b", "14.47")
    (top1,) = leaderboard(cards_store, "benchmark=ImageNet-1k", "metric=Top-1 Accuracy")
    assert (top1["value"], top1["unit"]) == ("81.50", "http://qudt.org/vocab/unit/PERCENT")
    validation = f"{BENCHMARK}automatic-phoneme-recognition/commonvoice-clean/validation"
    (per,) = leaderboard(cards_store, f"benchmark={validation}", "metric=Val PER")
    assert (per["value"], per["direction"]) == ("16.18", V.LowerIsBetter)
    (mc2,) = leaderboard(cards_store, "benchmark=TruthfulQA (0-shot)")
    assert (mc2["value"], mc2["rank"], mc2["direction"]) == ("59.49", "", "")
    assert mc2["cohort"] == "not ranked: the metric's direction is not known"


def test_the_store_keeps_who_reported_a_figure_and_whether_the_hub_verified_it(
    cards_store: Path, tmp_path: Path
) -> None:
    rq = tmp_path / "reported.rq"
    rq.write_text(
        f"PREFIX bg: <{V.BG}>\nPREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"
        "SELECT ?method ?value ?cell ?verified ?kind ?source ?arxiv WHERE {\n"
        "  ?r a bg:Result ; bg:method/rdfs:label ?method ; bg:publishedValue ?value ;\n"
        "     bg:reportedIn ?by .\n"
        "  ?by a ?kind ; rdfs:label ?source .\n"
        "  OPTIONAL { ?r bg:publishedCell ?cell } OPTIONAL { ?r bg:verified ?verified }\n"
        "  OPTIONAL { ?by bg:arxivId ?arxiv }\n"
        "  FILTER (?value IN ('245.37', '81.50', '0.9120', '86.22'))\n"
        "} ORDER BY ?value\n"
    )
    done = run_cli("query", str(rq), "--format", "csv", store=cards_store)
    assert done.returncode == 0, done.stderr
    rows = [tuple(row.values()) for row in csv.DictReader(io.StringIO(done.stdout))]
    assert rows == [
        ("tiny-vit-demo", "0.9120", "", "true", V.ModelCard, "tiny-vit-demo model card", ""),
        ("PPO", "245.37", "245.37 +/- 48.64", "false", V.ModelCard, "PPO model card", ""),
        ("tiny-vit-demo", "81.50", "81.50%", "false", V.Paper, "TinyViT paper", "2207.10666"),
        ("Seraph-7B", "86.22", "", "", V.ReportingDocument, "Open LLM Leaderboard", ""),
    ]


def test_two_cards_that_name_their_model_alike_load_side_by_side(tmp_path: Path) -> None:
    # "PPO" on LunarLander-v2 and "PPO" on CartPole-v0: two users' cards, one model name.
    first, second = (CARDS / "cs577__0xRiku__ppo-LunarLander-v2.yaml",
                     CARDS / "cs577__mhyatt000__YOLOv5.yaml")  # fmt: skip
    if not first.exists():
        pytest.skip("the model-card samples (../shared/data/hf_model_index) are not here")
    done = run_cli("ingest", str(first), str(second), store=tmp_path / "store")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("2 loaded, 0 unchanged, 0 refused, 0 unreadable;")


# Identity: which card a block is, never what it says.
PHIND = ("Phind-CodeLlama-34B-v1.md", "Phind-CodeLlama-34B-v2.md")


def test_every_sample_card_is_its_own_source_with_distinct_result_ids() -> None:
    if not CARDS.is_dir():
        pytest.skip("the model-card samples (../shared/data/hf_model_index) are not here")
    keys, ids = set(), set()
    for path in SAMPLES:
        if not isinstance(OUTCOMES[path.name], int):
            continue
        page = model_index.parse(path.read_bytes(), path.name)
        assert page.key == hashed(path.read_bytes()) and page.key not in keys, path.name
        keys.add(page.key)
        found = [r.source_id for r in page.results]
        assert len(set(found)) == len(found), path.name
        assert all(i.startswith(page.key + "/") for i in found)
        ids.update(found)
    assert len(keys) == sum(isinstance(o, int) for o in OUTCOMES.values())


def test_two_cards_that_call_their_model_ppo_are_two_sources_and_two_cards() -> None:
    first, second = (
        card("cs577__0xRiku__ppo-LunarLander-v2.yaml"),
        card("cs577__mhyatt000__YOLOv5.yaml"),
    )
    assert first.title == second.title == "PPO"
    assert first.key != second.key
    by = [page.results[0].reported_in for page in (first, second)]
    assert by[0].title == by[1].title == "PPO model card"
    assert iris.paper(by[0]) != iris.paper(by[1])
    assert iris.method("PPO") == iris.method(first.results[0].method)  # one method, as named


def test_phind_v1_and_v2_name_their_model_alike_and_are_two_sources() -> None:
    v1, v2 = (card(name) for name in PHIND)
    assert v1.title == v2.title == "Phind-CodeLlama-34B-v1"
    assert (v1.results[0].value, v2.results[0].value) == ("67.6", "73.8")
    assert v1.key == hashed((OWN / PHIND[0]).read_bytes()) != v2.key
    assert v1.results[0].source_id != v2.results[0].source_id
    assert v1.results[0].reported_in != v2.results[0].reported_in


def test_phind_v1_and_v2_are_keyed_by_their_repositories() -> None:
    pages = [
        model_index.parse((OWN / name).read_bytes(), name, repository=f"Phind/{name[:-3]}")
        for name in PHIND
    ]
    assert [page.key for page in pages] == [
        "model-index/Phind/Phind-CodeLlama-34B-v1",
        "model-index/Phind/Phind-CodeLlama-34B-v2",
    ]
    v2 = pages[1]
    assert v2.url == "https://huggingface.co/Phind/Phind-CodeLlama-34B-v2"
    assert v2.results[0].reported_in == PaperRef(
        source_id="Phind/Phind-CodeLlama-34B-v2",
        url="https://huggingface.co/Phind/Phind-CodeLlama-34B-v2",
        title="Phind/Phind-CodeLlama-34B-v2 model card",
        kind="model card",
    )
    assert v2.results[0].source_id == (
        "model-index/Phind/Phind-CodeLlama-34B-v2/phind-codellama-34b-v1/text-generation/"
        "humaneval/pass-1"
    )
    assert v2.results[0].method == "Phind-CodeLlama-34B-v1"  # the label as published
    assert iris.paper(v2.results[0].reported_in) == (f"{V.ID}card/Phind/Phind-CodeLlama-34B-v2")


def test_a_revision_names_the_card_at_that_revision() -> None:
    data = (OWN / PHIND[1]).read_bytes()
    page = model_index.parse(data, "x.md", "Phind/Phind-CodeLlama-34B-v2", "refs/pr/3")
    assert page.key == "model-index/Phind/Phind-CodeLlama-34B-v2"
    assert page.url == (
        "https://huggingface.co/Phind/Phind-CodeLlama-34B-v2/blob/refs%2Fpr%2F3/README.md"
    )
    assert page.results[0].reported_in.url == page.url


@pytest.mark.parametrize(
    ("repository", "revision"),
    [("Phind-CodeLlama-34B-v2", None), ("Phind/Phind/v2", None), ("/name", None),
     ("org/", None), ("org/na me", None), ("org/-name", None), ("org/na--me", None),
     ("org/na..me", None), ("org/nämé", None), ("org/" + "n" * 97, None),
     ("org/name", "main branch"), ("org/name", "../main"), ("org/name", "")],
)  # fmt: skip
def test_a_repository_or_revision_the_hub_would_not_accept_is_refused(
    repository: str, revision: str | None
) -> None:
    data = (OWN / PHIND[0]).read_bytes()
    with pytest.raises(ValueError, match=r"is not a (Hugging Face repository|revision)"):
        model_index.parse(data, "x.md", repository, revision)


def test_a_revision_without_its_repository_is_refused() -> None:
    with pytest.raises(ValueError, match="without its repository"):
        model_index.parse((OWN / PHIND[0]).read_bytes(), "x.md", revision="main")


def test_phind_v1_and_v2_load_side_by_side(tmp_path: Path) -> None:
    done = run_cli("ingest", *(str(OWN / name) for name in PHIND), store=tmp_path / "store")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("2 loaded, 0 unchanged, 0 refused, 0 unreadable;")
    # The v2 card names its model as v1's card does: by name, one model, whose two cards give
    # two values for one claim. The board ranks the claim once and says it holds two values;
    # the claims list both, side by side, and say they disagree.
    (row,) = leaderboard(tmp_path / "store", "benchmark=HumanEval")
    assert (row["value"], row["claimValues"], row["claimSources"]) == ("67.6", "2", "2")
    done = run_cli("query", "claims", "--format", "csv", store=tmp_path / "store")
    values = {r["value"]: r["agrees"] for r in csv.DictReader(io.StringIO(done.stdout))}
    assert values == {"67.6": "true", "73.8": "false"}


# Skip per claim: a metric with no value is skipped, the card's others load.
def test_a_null_value_skips_that_metric_only() -> None:
    data = edited_card("      value: 95.7\n", "      value: null\n")
    page = model_index.parse(data, "README.md")
    assert [r.value for r in page.results] == ["81.50", "0.9120"]
    assert [str(w) for w in page.warnings] == [
        f"README.md: {spot(0, 1)}.value: skipped: no value (null) (a value is one number)",
        f"README.md: {spot(0, 2)}.value: skipped: no value ('-') (a value is one number)",
    ]
    assert (page.declared_count, page.total_count) == (2, 4)


@pytest.mark.parametrize(
    ("value", "location", "problem"),
    [("      value: TBD\n", ".value", "skipped: no value ('TBD')"),
     ("      value: ''\n", ".value", "skipped: no value (empty)"),
     ("      value: n/a\n", ".value", "skipped: no value ('n/a')"),
     ("", "", "skipped: no value"),
     ("      values: [95.7, 95.9]\n", ".values",
      "skipped: 'values' (a list) where one 'value' should be"),
     ("      value: 0,957\n", ".value",
      "skipped: '0,957' looks like a decimal comma: write 0.957")],
)  # fmt: skip
def test_a_metric_of_no_readable_value_is_skipped_with_one_warning(
    value: str, location: str, problem: str
) -> None:
    page = model_index.parse(edited_card("      value: 95.7\n", value), "README.md")
    assert len(page.results) == 2
    (warning,) = [w for w in page.warnings if w.location.startswith(spot(0, 1))]
    assert (warning.location, warning.problem) == (spot(0, 1) + location, problem)


def test_a_value_with_a_bracketed_interval_keeps_it_in_the_published_cell() -> None:
    page = model_index.parse(edited_card("value: 95.7\n", "value: 95.7 [95.1, 96.2]\n"), "c.md")
    result = at(page, spot(0, 1))
    assert (result.value, result.cell) == ("95.7", "95.7 [95.1, 96.2]")
    assert (result.interval, result.spread) == (None, None)  # no rank interval is made of it


def test_a_card_none_of_whose_metrics_is_read_is_still_refused() -> None:
    data = ARGS.replace("ARGS", "{}").replace("value: 1", "value: null").encode()
    with pytest.raises(PageError) as refused:
        model_index.parse(data, "a.yaml")
    assert (refused.value.location, refused.value.problem, refused.value.hint) == (
        "model-index",
        "no metric of the card could be read",
        f"{spot(0, 0)}.value: skipped: no value (null)",
    )


# Front matter is read as the Hub reads it.
@pytest.mark.parametrize("before", [" \n", "\n", "  \t\n\n   \n"])
def test_front_matter_after_blank_or_space_only_lines_is_read(before: str) -> None:
    text = before + (OWN / "README.md").read_text(encoding="utf-8")
    assert model_index.sniff(text)
    page = model_index.parse(text.encode(), "README.md")
    assert [r.value for r in page.results] == ["81.50", "95.7", "0.9120"]
    broken = text.replace("      split: validation\n", "      split: [validation\n")
    with pytest.raises(PageError) as refused:  # YAML's line numbers are still the file's
        model_index.parse(broken.encode(), "README.md")
    assert refused.value.location == f"line {19 + before.count(chr(10))}, column 12"
