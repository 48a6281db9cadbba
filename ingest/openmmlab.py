"""Parser for OpenMMLab ``metafile.yml`` files: the model zoo of one method in an OpenMMLab
repository (mmdetection, mmsegmentation, mmpretrain...), ``configs/<method>/metafile.yml``.

A metafile is a YAML mapping. ``Collections`` lists the methods: each a ``Name``, a
``Metadata`` mapping shared by its models (``Training Data``, ``Training Techniques``,
``Training Resources``, ``Epochs``, ``Batch Size``, ``Architecture``...), the ``Paper`` that
introduced it (``{URL, Title}``, or a bare URL), its ``README`` and its ``Code`` (``{URL,
Version}``). ``Models`` lists the trained models: each a ``Name``, the collection it is ``In``,
its ``Config`` file, its own ``Metadata`` (``Epochs``, ``Training Memory (GB)``, ``inference
time (ms/im)``, ``FLOPs``...), its ``Results`` (a list of ``{Task, Dataset, Metrics: {name:
value}}``) and its ``Weights`` (the checkpoint's URL).

What each part becomes:

- The model's ``Name`` is the method (``retinanet_r50_fpn_1x_coco``): what was evaluated. Its
  collection's ``Paper`` introduced it (its origin). The figures are OpenMMLab's own, measured on
  its checkpoints and published in the metafile, not the paper's: the reporting source is the
  metafile, a document of the publisher OpenMMLab.
- Each result's ``Task`` on its ``Dataset`` is a benchmark (no split: the file states none);
  each entry of its ``Metrics`` one result, no unit stated (``%`` only when the value carries
  one), its direction by benchgraph's table of names (``box AP``, ``mask AP``, ``mIoU``, ``Top 1
  Accuracy``: higher is better, inferred); a name in no table has none and is not ranked.
- The configuration holds the model's ``Config`` (``config``) and its training metadata, the
  model's own over its collection's: ``Training Data``, ``Training Techniques``, ``Training
  Resources``, ``Epochs``, ``Iterations``, ``Batch Size`` (a list joined by ``, ``). So a 1x and a
  2x schedule of one architecture stay apart even where the file gives both the same ``Config``.
  The model's measurements (memory, inference time, FLOPs, parameters) and the collection's
  ``Architecture`` are no setting of the evaluation and are left out.
- The collection's ``Code`` URL and the model's ``Weights`` are the result's code links.

**One source per metafile**: ``openmmlab/<repository>/configs/<method>``, normalised, when the
file stands at ``<repository>/configs/<method>/metafile.yml`` (or ``.yaml``; another file name
adds its stem: ``…/configs/pspnet/metafile-fps``), the repository named by the folder holding
``configs``, as a clone names it (``mmdetection``): two repositories each have a
``configs/convnext``, and are two sources. Elsewhere the file's bytes name it:
``openmmlab/sha256-`` and 16 hex digits. A result's ID is the key, the model, the task, the
dataset and the metric, normalised, with ``/2``, ``/3`` for a repeat in file order.

A metric whose value is not one number is skipped with a warning naming its YAML path, and so is
a model with no results (a pretraining checkpoint, ``Results: null``). Refused, with the YAML
path: a document that is not a mapping with a ``Models`` list, a collection or model that is not
a mapping or has no ``Name``, a ``Results`` that is not a list, a result that is not a mapping
or has no ``Task``, ``Dataset`` or ``Metrics`` mapping, and text where a list or mapping
belongs; also a file none of whose metrics can be read.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchgraph.names import key_part
from ingest import directions
from ingest.cells import CellError, read_cell
from ingest.records import (
    Benchmark,
    Configuration,
    MetricDecl,
    Page,
    PageError,
    PageWarning,
    PaperRef,
    ResultRecord,
    Setting,
    SourceFormat,
)
from ingest.sources import run_page
from ingest.structured import decoded, load_yaml, path, shown

FORMAT: SourceFormat = "openmmlab"
KEY = "openmmlab"
PUBLISHER = "OpenMMLab"
HINT = (
    "an OpenMMLab metafile is a mapping with a 'Models' list, each model a Name and 'Results', "
    "a list of {Task, Dataset, Metrics}"
)
# The metadata that says how a model was trained, kept as settings (see the module).
TRAINING = (
    "Training Data", "Training Techniques", "Training Resources", "Epochs", "Iterations",
    "Batch Size",
)  # fmt: skip
# The file names a repository gives its metafiles: either is the folder's one metafile.
METAFILES = frozenset({"metafile.yml", "metafile.yaml"})
_MODELS = re.compile(r"^Models[ \t]*:[ \t]*(?:#.*)?$", re.M)
_RESULTS = re.compile(r"^[ \t]+(?:-[ \t]+)?Results[ \t]*:", re.M)
# A line at the left margin of a YAML document: blank, a comment, a list item, a document
# marker or a key (prose, a Markdown table or a JSON document is not).
_YAML_LINE = re.compile(r"(?:$|[\s#]|-(?:\s|$)|---|\.\.\.|[^\s#:{\[\"][^:]*:(?:\s|$))")
_ARXIV = re.compile(
    r"arxiv\.org/(?:abs|pdf)/(\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z]{2})?/\d{7})(?:v\d+)?", re.I
)


def sniff(text: str) -> bool:
    """Return True for a YAML document with a top-level ``Models:`` key and an indented
    ``Results:`` key, every line at its left margin a YAML key, item or comment."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    if not (_MODELS.search(text) and _RESULTS.search(text)):
        return False
    return all(_YAML_LINE.match(line) for line in text.splitlines())


def locate(origin: str) -> str | None:
    """The place of the metafile at ``origin`` in its repository, normalised:
    ``<repository>/configs/<method>`` (plus the file's stem for a name not in METAFILES), or
    None when the file does not stand in a ``configs/<method>/`` folder of a repository."""
    parts = Path(os.path.abspath(origin)).parts
    if len(parts) < 5 or parts[-3] != "configs":
        return None
    place = "/".join(key_part(part) for part in (parts[-4], "configs", parts[-2]))
    name = Path(parts[-1])
    return place if name.name.lower() in METAFILES else f"{place}/{key_part(name.stem)}"


@dataclass(frozen=True)
class Collection:
    """A method of the metafile: its name, origin paper, code link and shared metadata."""

    name: str
    paper: PaperRef | None
    code: str | None
    metadata: Mapping[str, Any]


@dataclass
class _Reading:
    origin: str
    key: str
    document: PaperRef
    collections: dict[str, Collection]
    warnings: list[PageWarning] = field(default_factory=list)
    metrics: dict[tuple[Benchmark, str], MetricDecl] = field(default_factory=dict)
    ids: set[str] = field(default_factory=set)

    def error(self, where: str, problem: str) -> PageError:
        return PageError(self.origin, where, problem, HINT)

    def warn(self, where: str, problem: str) -> None:
        self.warnings.append(PageWarning(self.origin, where, problem))


def parse(data: bytes, origin: str) -> Page:
    """Read an OpenMMLab metafile; ``origin`` names it in errors, and where it stands names
    its source (see :func:`locate`).

    Returns its one Page. Raises PageError for bytes that are not UTF-8 YAML, for a structure
    that is not a metafile's (with its YAML path), and for a file none of whose metrics can be
    read.
    """
    text = decoded(data, origin, HINT)
    document = load_yaml(text, origin)
    if not isinstance(document, Mapping):
        raise PageError(origin, "", f"the document is {shown(document)}, not a mapping", HINT)
    models = document.get("Models")
    if not isinstance(models, list) or not models:
        raise PageError(origin, "Models", f"is {shown(models)}, not a list of models", HINT)
    digest = hashlib.sha256(data).hexdigest()
    place = locate(origin)
    key = f"{KEY}/{place}" if place else f"{KEY}/sha256-{digest[:16]}"
    title = f"OpenMMLab metafile {place}" if place else f"OpenMMLab metafile sha256-{digest[:16]}"
    reading = _Reading(origin, key, PaperRef(source_id=key, title=title, kind="document"), {})
    reading.collections = _collections(reading, document.get("Collections"))
    results = []
    for index, model in enumerate(models):
        results.extend(_model(reading, index, model))
    if not results:
        raise PageError(origin, "", "none of its metrics can be read", HINT)
    return _page(reading, results, digest)


def _collections(reading: _Reading, raw: object) -> dict[str, Collection]:
    """The metafile's collections by name. Raises PageError with the YAML path."""
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise reading.error("Collections", f"is {shown(raw)}, not a list")
    found = {}
    for index, entry in enumerate(raw):
        where = path("Collections", index)
        entry = _mapping(reading, entry, where)
        name = _text(reading, entry, where, "Name", required=True)
        metadata = _mapping(reading, entry.get("Metadata") or {}, path(where, "Metadata"))
        paper = _paper(reading, entry.get("Paper"), path(where, "Paper"))
        code = entry.get("Code")
        url = code.get("URL") if isinstance(code, Mapping) else code
        if url is not None and not isinstance(url, str):
            raise reading.error(path(where, "Code"), f"is {shown(code)}, not a link")
        found[str(name)] = Collection(str(name), paper, url, metadata)
    return found


def _paper(reading: _Reading, raw: object, where: str) -> PaperRef | None:
    """A collection's ``Paper``: ``{URL, Title}`` or a bare URL; None for none."""
    if raw is None:
        return None
    url: str | None
    title: str | None
    if isinstance(raw, str):
        url, title = raw.strip(), None
    elif isinstance(raw, Mapping):
        url = _text(reading, raw, where, "URL")
        title = _text(reading, raw, where, "Title")
    else:
        raise reading.error(where, f"is {shown(raw)}, not a paper ({{URL, Title}} or a URL)")
    if not url and not title:
        return None
    arxiv = _ARXIV.search(url) if url else None
    title = title or (f"arXiv:{arxiv[1]}" if arxiv else url)
    return PaperRef(url=url or None, title=title, arxiv_id=arxiv[1] if arxiv else None)


@dataclass(frozen=True)
class _Model:
    """What a model's results share: its name, origin paper, configuration and links."""

    name: str
    origin: PaperRef | None
    configuration: Configuration
    links: tuple[str, ...]


def _model(reading: _Reading, index: int, raw: object) -> list[ResultRecord]:
    """The results of ``Models[index]``. Raises PageError with the YAML path."""
    where = path("Models", index)
    model = _mapping(reading, raw, where)
    name = str(_text(reading, model, where, "Name", required=True))
    collection = _collection(reading, model, where)
    weights = _text(reading, model, where, "Weights")
    config = _text(reading, model, where, "Config")
    own = _mapping(reading, model.get("Metadata") or {}, path(where, "Metadata"))
    shared = collection.metadata if collection else {}
    configuration = _configuration(config, {**shared, **own}, collection)
    links = tuple(link for link in (collection and collection.code, weights) if link)
    results = model.get("Results")
    if results is None:
        reading.warn(path(where, "Results"), f"model {name!r} has no results: skipped")
        return []
    if not isinstance(results, list):
        raise reading.error(path(where, "Results"), f"is {shown(results)}, not a list")
    model_ref = _Model(name, collection.paper if collection else None, configuration, links)
    found = []
    for number, result in enumerate(results):
        found.extend(_result(reading, path(where, "Results", number), model_ref, result))
    return found


def _collection(reading: _Reading, model: Mapping[str, Any], where: str) -> Collection | None:
    """The collection a model is ``In``; None (with a warning) for one the file lacks."""
    name = _text(reading, model, where, "In Collection")
    if name is None:
        return None
    if name not in reading.collections:
        reading.warn(
            path(where, "In Collection"),
            f"no collection {name!r} in the file: the model's origin paper is not known",
        )
        return None
    return reading.collections[name]


def _configuration(
    config: str | None, metadata: Mapping[str, Any], collection: Collection | None
) -> Configuration:
    """The settings a model was trained with: its config file and training metadata."""
    settings = [Setting("collection", collection.name)] if collection else []
    if config:
        settings.append(Setting("config", config))
    for key in TRAINING:
        value = metadata.get(key)
        if isinstance(value, list):
            value = ", ".join(str(item) for item in value if item is not None)
        if value is not None and str(value).strip():
            settings.append(Setting(key, str(value).strip()))
    return Configuration(settings=tuple(settings))


def _result(reading: _Reading, where: str, model: _Model, raw: object) -> list[ResultRecord]:
    """The records of one entry of a model's ``Results``: one per readable metric."""
    result = _mapping(reading, raw, where)
    task = str(_text(reading, result, where, "Task", required=True))
    dataset = str(_text(reading, result, where, "Dataset", required=True))
    metrics = result.get("Metrics")
    if not isinstance(metrics, Mapping) or not metrics:
        raise reading.error(path(where, "Metrics"), f"is {shown(metrics)}, not a mapping")
    benchmark = Benchmark(task=task, dataset=dataset)
    records = []
    for metric, value in metrics.items():
        spot = path(where, "Metrics", str(metric))
        try:
            cell = read_cell(value)
        except CellError as error:
            reading.warn(spot, f"metric skipped: {error}")
            continue
        _declare(reading, benchmark, str(metric), cell.percent)
        records.append(
            ResultRecord(
                source_id=_identify(reading, model.name, benchmark, str(metric)),
                method=model.name,
                metric=str(metric),
                value=cell.value,
                reported_in=reading.document,
                origin=model.origin,
                configuration=model.configuration,
                benchmark=benchmark,
                cell=None if cell.as_published else cell.text,
                spread=cell.spread,
                code_links=model.links,
                location=spot,
            )
        )
    return records


def _declare(reading: _Reading, benchmark: Benchmark, name: str, percent: bool) -> None:
    if (benchmark, name) in reading.metrics:
        return
    direction = directions.infer(name)
    reading.metrics[(benchmark, name)] = MetricDecl(
        name,
        "%" if percent or "%" in name else None,
        direction,
        direction_inferred=direction is not None,
        benchmark=benchmark,
    )


def _identify(reading: _Reading, model: str, benchmark: Benchmark, metric: str) -> str:
    """A result's ID from what it states; ``/2``, ``/3``... for a repeat in file order."""
    names = (model, benchmark.task, benchmark.dataset, metric)
    found = "/".join([reading.key, *(key_part(name) for name in names)])
    repeat, given = 1, found
    while given in reading.ids:
        repeat += 1
        given = f"{found}/{repeat}"
    reading.ids.add(given)
    return given


def _mapping(reading: _Reading, raw: object, where: str) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise reading.error(where, f"is {shown(raw)}, not a mapping")
    return raw


def _text(
    reading: _Reading, entry: Mapping[str, Any], where: str, key: str, required: bool = False
) -> str | None:
    """``entry[key]`` as stripped text (a number as written), or None when absent. Raises
    PageError for a list or mapping there, and for a required text that is absent or blank."""
    value = entry.get(key)
    if isinstance(value, str) and value.strip():
        return value.strip()
    if (value is None or isinstance(value, str)) and not required:
        return None
    expected = "a name" if required else "text"
    raise reading.error(path(where, key), f"is {shown(value)}, not {expected}")


def _page(reading: _Reading, results: list[ResultRecord], digest: str) -> Page:
    title = str(reading.document.title)
    return run_page(FORMAT, reading.origin, reading.key, title, reading.metrics.values(),
                    results, PUBLISHER, digest, reading.warnings)  # fmt: skip
