"""Plain records that parsers produce and the mapper consumes.

Parsers never see RDF and the mapper never sees page text: these frozen dataclasses are the
whole interface between the two. Every number is kept as the exact text the page published
(``"5.0"`` stays ``"5.0"``); the mapper decides how to type it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Direction = Literal["higher", "lower"]
# The two page formats, then the formats of other publishers' result files.
SourceFormat = Literal[
    "sota2",
    "radar",
    "pwc-tables",
    "pwc-api",
    "model-index",
    "score-file",
    "leaderboard-csv",
    "eee",
    "lm-eval",
    "mteb",
    "helm",
    "openmmlab",
]
# What reported a number: a paper, a model card (Hugging Face), or another document (a blog
# post, a leaderboard, a technical report on a web page).
SourceKind = Literal["paper", "model card", "document"]
# What a published ± means. "not stated" when the source does not say.
SpreadMeaning = Literal["standard deviation", "standard error", "confidence interval", "not stated"]


class PageError(Exception):
    """A page that cannot be read as a source page.

    ``origin`` names the file (or other origin), ``location`` the place in it (``line 42``,
    ``results table row 3``, ``result 6a06…``), ``problem`` what is wrong and ``hint`` what to
    do about it.
    """

    def __init__(self, origin: str, location: str, problem: str, hint: str = "") -> None:
        self.origin = origin
        self.location = location
        self.problem = problem
        self.hint = hint
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.origin}: {self.location}" if self.location else self.origin
        text = f"{where}: {self.problem}"
        return f"{text} ({self.hint})" if self.hint else text


@dataclass(frozen=True)
class PageWarning:
    """Something a parser read past without refusing the page: a table it could not place, a
    name it could not reconcile. Named like a PageError: ``origin``, ``location``, ``problem``
    and ``hint``."""

    origin: str
    location: str
    problem: str
    hint: str = ""

    def __str__(self) -> str:
        where = f"{self.origin}: {self.location}" if self.location else self.origin
        text = f"{where}: {self.problem}"
        return f"{text} ({self.hint})" if self.hint else text


@dataclass(frozen=True)
class PaperRef:
    """A paper as a page names it: a source ID (sota2's 24-hex ID) and/or a title."""

    source_id: str | None = None
    url: str | None = None
    title: str | None = None
    date: str | None = None  # ISO date as given, e.g. "2026-10-30"
    kind: SourceKind = "paper"
    arxiv_id: str | None = None  # e.g. "2101.00001", when the source gives it


@dataclass(frozen=True)
class Benchmark:
    task: str
    dataset: str
    split: str | None = None


@dataclass(frozen=True)
class MetricDecl:
    """A metric as declared for the page's benchmark."""

    name: str
    # As published: "PERCENT", "SCALAR", "percent", "%", "毫秒", ... None: the source states no
    # unit (result files often do not); a blank text is a page's missing unit and is refused.
    unit: str | None
    direction: Direction | None  # None: neither the source nor the metric-name table says
    url: str | None = None
    chance_level: str | None = None  # decimal text, in the metric's unit
    direction_inferred: bool = False  # read from the metric-name table, not from the source
    benchmark: Benchmark | None = None  # None: the page's benchmark


@dataclass(frozen=True)
class Setting:
    key: str
    value: str


@dataclass(frozen=True)
class Configuration:
    """How a result was obtained. Empty settings and no protocol/subset means not recorded."""

    settings: tuple[Setting, ...] = ()
    raw_json: str | None = None  # the configuration JSON exactly as published
    protocol: str | None = None
    subset: str | None = None

    @property
    def recorded(self) -> bool:
        return bool(self.settings or self.protocol or self.subset)


@dataclass(frozen=True)
class Interval:
    """A published confidence interval, bounds as decimal text."""

    lower: str
    upper: str
    level: str  # e.g. "0.95"
    text: str  # as published, e.g. "[3.9,5.0]"


@dataclass(frozen=True)
class Spread:
    """A published ± half-width around a value, as decimal text."""

    half_width: str
    meaning: SpreadMeaning
    text: str  # the cell as published, e.g. "0.8428 ± 0.0014"


@dataclass(frozen=True)
class ResultRecord:
    """One published number for one method."""

    source_id: str  # the source's own result ID, or a deterministic key built from the page
    method: str  # the method/model name as this row publishes it
    metric: str  # name of a MetricDecl of the page
    value: str  # decimal text exactly as published
    reported_in: PaperRef
    origin: PaperRef | None = None
    implementation: str | None = None
    result_date: str | None = None  # ISO date, when recorded
    configuration: Configuration = field(default_factory=Configuration)
    interval: Interval | None = None
    sample_size: int | None = None
    table: str = ""  # which table of the page it came from, e.g. "Recorded results", "Table 9"
    headline: bool = True  # part of the page's main results series (what its count declares)
    line: int = 0  # 1-based line in the page where the row stands
    benchmark: Benchmark | None = None  # None: the page's benchmark
    cell: str | None = None  # the cell as published, when it is more than the value ("2.31%")
    spread: Spread | None = None
    code_links: tuple[str, ...] = ()  # code repositories given for this result
    verified: bool | None = None  # model-index: whether the hub verified the figure
    location: str = ""  # where in a result file the row stands (a JSON or YAML path)
    self_reported: bool | None = None  # a leaderboard's: whether the model's maker gave it


@dataclass(frozen=True)
class AggregateRecord:
    """A published number that is not any method's result (e.g. a mean over models)."""

    source_id: str
    metric: str
    value: str
    description: str
    subset: str | None = None
    sample_size: int | None = None
    interval: Interval | None = None
    table: str = ""
    line: int = 0


@dataclass(frozen=True)
class MethodRecord:
    """A method a document describes apart from any result (the PWC API's methods)."""

    name: str
    full_name: str | None = None
    origin: PaperRef | None = None


@dataclass(frozen=True)
class Page:
    """Everything one source page says, as records."""

    format: SourceFormat
    origin: str  # the file it was read from
    key: str  # stable identity of the page (from its URL or benchmark), names its graph
    title: str
    url: str | None
    data_updated: str | None  # ISO date or dateTime as published
    # The page's benchmark; for a result file, the first of its benchmarks (the others are
    # named by the metrics and results that carry their own), or None for a file that holds
    # papers and methods only.
    benchmark: Benchmark | None
    metrics: tuple[MetricDecl, ...]
    primary_metric: str | None  # of ``benchmark``; another benchmark's is its first metric
    results: tuple[ResultRecord, ...]
    declared_count: int  # N of "N of M" (sota2) / the page's recorded-result count (radar)
    total_count: int | None = None  # M of "N of M", when published
    coverage: str | None = None
    description: str | None = None
    page_number: int | None = None
    page_count: int | None = None
    publisher: str | None = None
    checked_on: str | None = None  # radar: date the page was checked
    data_freeze: str | None = None  # radar: data-freeze identifier
    reporting_paper: PaperRef | None = None  # radar: the one paper all results come from
    aggregates: tuple[AggregateRecord, ...] = ()
    sha256: str = ""
    warnings: tuple[PageWarning, ...] = ()  # what the parser read past, in page order
    papers: tuple[PaperRef, ...] = ()  # papers the document names apart from its results
    methods: tuple[MethodRecord, ...] = ()  # methods the document describes apart from results
    task_parents: tuple[tuple[str, str], ...] = ()  # (subtask, task) pairs, as a file nests them

    def metric(self, name: str, benchmark: Benchmark | None = None) -> MetricDecl:
        """Return the metric called ``name`` declared for ``benchmark`` (default: the page's);
        raise KeyError if there is none."""
        wanted = benchmark or self.benchmark
        for decl in self.metrics:
            if decl.name == name and (decl.benchmark or self.benchmark) == wanted:
                return decl
        raise KeyError(name)

    @property
    def benchmarks(self) -> tuple[Benchmark, ...]:
        """Every benchmark the page reports on, the page's own first, each once."""
        found = [self.benchmark] if self.benchmark is not None else []
        for decl in self.metrics:
            if decl.benchmark is not None and decl.benchmark not in found:
                found.append(decl.benchmark)
        return tuple(found)
