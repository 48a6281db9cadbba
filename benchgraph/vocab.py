"""The names of the benchgraph vocabulary, as plain IRI strings.

This module and ``ontology/`` say the same thing: every ``bg:`` term used here is declared there
(a test checks it). Other modules build RDF terms from these strings.
"""

from __future__ import annotations

BG = "https://w3id.org/benchgraph/ns#"
ID = "https://w3id.org/benchgraph/id/"

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
XSD = "http://www.w3.org/2001/XMLSchema#"
DCTERMS = "http://purl.org/dc/terms/"
PROV = "http://www.w3.org/ns/prov#"
SCHEMA = "https://schema.org/"
UNIT = "http://qudt.org/vocab/unit/"
OWL = "http://www.w3.org/2002/07/owl#"
QUDT = "http://qudt.org/schema/qudt/"
MLS = "http://www.w3.org/ns/mls#"

PREFIXES = {
    "bg": BG,
    "rdf": RDF,
    "rdfs": RDFS,
    "xsd": XSD,
    "dcterms": DCTERMS,
    "prov": PROV,
    "schema": SCHEMA,
    "unit": UNIT,
}

# Classes
Result = BG + "Result"
Aggregate = BG + "Aggregate"
Method = BG + "Method"
Paper = BG + "Paper"
Benchmark = BG + "Benchmark"
Task = BG + "Task"
Dataset = BG + "Dataset"
Metric = BG + "Metric"
EvaluationConfiguration = BG + "EvaluationConfiguration"
Setting = BG + "Setting"
SourceDocument = BG + "SourceDocument"
Direction = BG + "Direction"
UnmappedUnit = BG + "UnmappedUnit"
ModelCard = BG + "ModelCard"
ReportingSource = BG + "ReportingSource"
ReportingDocument = BG + "ReportingDocument"
SourceVersion = BG + "SourceVersion"

# Individuals
HigherIsBetter = BG + "HigherIsBetter"
LowerIsBetter = BG + "LowerIsBetter"
NoUnitStated = BG + "NoUnitStated"

# Result and aggregate properties
method = BG + "method"
benchmark = BG + "benchmark"
metric = BG + "metric"
value = BG + "value"
publishedValue = BG + "publishedValue"
unit = BG + "unit"
reportedIn = BG + "reportedIn"
configuration = BG + "configuration"
ciLower = BG + "ciLower"
ciUpper = BG + "ciUpper"
ciLevel = BG + "ciLevel"
publishedInterval = BG + "publishedInterval"
sampleSize = BG + "sampleSize"
# Intervals benchgraph derives (never published): see ingest.wilson
derivedCiLower = BG + "derivedCiLower"
derivedCiUpper = BG + "derivedCiUpper"
derivedCiLevel = BG + "derivedCiLevel"
intervalMethod = BG + "intervalMethod"
IntervalMethod = BG + "IntervalMethod"
WilsonScoreInterval = BG + "WilsonScoreInterval"
resultDate = BG + "resultDate"
sourceTable = BG + "sourceTable"
headline = BG + "headline"
publishedCell = BG + "publishedCell"
plusMinus = BG + "plusMinus"
plusMinusMeaning = BG + "plusMinusMeaning"
codeRepository = BG + "codeRepository"
verified = BG + "verified"
developerReported = BG + "developerReported"
sourceLocation = BG + "sourceLocation"
publishedMethodName = BG + "publishedMethodName"
publishedPaperTitle = BG + "publishedPaperTitle"
publishedPaperURL = BG + "publishedPaperURL"
nameAmbiguous = BG + "nameAmbiguous"
claim = BG + "claim"
reporterRole = BG + "reporterRole"
reportedOn = BG + "reportedOn"
Claim = BG + "Claim"

# Method
introducedIn = BG + "introducedIn"
implementation = BG + "implementation"
arxivId = BG + "arxivId"

# Benchmark and metric
task = BG + "task"
dataset = BG + "dataset"
split = BG + "split"
hasMetric = BG + "hasMetric"
direction = BG + "direction"
chanceLevel = BG + "chanceLevel"
directionInferred = BG + "directionInferred"
subtaskOf = BG + "subtaskOf"

# Configuration
setting = BG + "setting"
settingKey = BG + "settingKey"
settingValue = BG + "settingValue"
configurationJSON = BG + "configurationJSON"
protocol = BG + "protocol"
subset = BG + "subset"

# Source document
sourceFormat = BG + "sourceFormat"
sha256 = BG + "sha256"
declaredResultCount = BG + "declaredResultCount"
totalResultCount = BG + "totalResultCount"
resultCount = BG + "resultCount"
coverage = BG + "coverage"
primaryMetric = BG + "primaryMetric"
pageNumber = BG + "pageNumber"
pageCount = BG + "pageCount"
checkedOn = BG + "checkedOn"
dataFreeze = BG + "dataFreeze"
publisherName = BG + "publisherName"

# Versions of a source page (the versions catalogue)
versionOf = BG + "versionOf"
versionGraph = BG + "versionGraph"
withdrawnAt = BG + "withdrawnAt"
restoredAt = BG + "restoredAt"
# The differences between two versions of a page, kept at ingest (benchgraph.changelog)
VersionDelta = BG + "VersionDelta"
deltaFrom = BG + "deltaFrom"
deltaTo = BG + "deltaTo"
fromStatements = BG + "fromStatements"
toStatements = BG + "toStatements"

# A page's current validation report: the key audit-findings pages by (benchgraph.report_keys)
reportKey = BG + "reportKey"

# A version's audit summary (see benchgraph.summaries), in the versions catalogue
SummaryEntry = BG + "SummaryEntry"
summaryResults = BG + "summaryResults"
summarySelfReported = BG + "summarySelfReported"
summaryOriginKnown = BG + "summaryOriginKnown"
summarySelfReportedMethod = BG + "summarySelfReportedMethod"
summarySelfReportedNames = BG + "summarySelfReportedNames"
summaryUnnamedMethod = BG + "summaryUnnamedMethod"
summaryMethodWithoutOrigin = BG + "summaryMethodWithoutOrigin"
summaryMethod = BG + "summaryMethod"
summaryPaper = BG + "summaryPaper"

# Alias records (the alias graph): curators' reviewed statements that two IRIs name one thing
Alias = BG + "Alias"
AliasStatus = BG + "AliasStatus"
Proposed = BG + "Proposed"
Accepted = BG + "Accepted"
Rejected = BG + "Rejected"
aliasSubject = BG + "aliasSubject"
aliasTarget = BG + "aliasTarget"
aliasStatus = BG + "aliasStatus"
evidence = BG + "evidence"
confidence = BG + "confidence"
reviewedBy = BG + "reviewedBy"
reviewedAt = BG + "reviewedAt"

# Standard terms used by benchgraph
type_ = RDF + "type"
JSON = RDF + "JSON"
label = RDFS + "label"
comment = RDFS + "comment"
identifier = DCTERMS + "identifier"
title = DCTERMS + "title"
description = DCTERMS + "description"
modified = DCTERMS + "modified"
creator = DCTERMS + "creator"
created = DCTERMS + "created"
date = DCTERMS + "date"
wasDerivedFrom = PROV + "wasDerivedFrom"
generatedAtTime = PROV + "generatedAtTime"
Entity = PROV + "Entity"
Activity = PROV + "Activity"
wasRevisionOf = PROV + "wasRevisionOf"
wasGeneratedBy = PROV + "wasGeneratedBy"
startedAtTime = PROV + "startedAtTime"
endedAtTime = PROV + "endedAtTime"
url = SCHEMA + "url"
alternateName = SCHEMA + "alternateName"

BG_TERMS = sorted(
    v for k, v in dict(globals()).items() if isinstance(v, str) and v.startswith(BG) and v != BG
)

# How each way of deriving an interval is named: in full, and where a table shows a derived
# interval ("[35.85, 49.43] derived (Wilson, n=200)").
INTERVAL_METHODS = {WilsonScoreInterval: ("Wilson score interval", "Wilson")}

# Units by canonical name (see ``ingest.units``, which folds the ways pages spell them) -> QUDT
# unit IRIs. ``SCALAR`` is a pure number: QUDT's UNITLESS; so is a score in points. A rate of
# tokens is a count per second (QUDT's NUM-PER-SEC), a count QUDT's NUM.
UNITS = {
    "percent": UNIT + "PERCENT",
    "%": UNIT + "PERCENT",
    "scalar": UNIT + "UNITLESS",
    "unitless": UNIT + "UNITLESS",
    "point": UNIT + "UNITLESS",
    "seconds": UNIT + "SEC",
    "second": UNIT + "SEC",
    "milliseconds": UNIT + "MilliSEC",
    "millisecond": UNIT + "MilliSEC",
    "token per second": UNIT + "NUM-PER-SEC",
    "count": UNIT + "NUM",
}


def unit_iri(published: str) -> str | None:
    """Return the QUDT unit IRI for a unit by its canonical name (or as a page publishes it, for
    the names above), or None if unknown."""
    return UNITS.get(published.strip().casefold())
