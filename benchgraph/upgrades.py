"""What opening a store of an earlier layout to write does (see
:class:`benchgraph.store.EmbeddedStore`): the store is brought to the present layout once.

- Before layout 3, some sources were named by what they say: :func:`benchgraph.identities.upgrade`.
- Before layout 4, no version had its audit summary (:mod:`benchgraph.summaries`) and no two
  versions of a page their delta (:mod:`benchgraph.changelog`): they are built from the graphs,
  as ``benchgraph repair`` builds them. Without them the self-reported audit would count none
  of the store's results (it is refused then: :mod:`benchgraph.kept`);
  ``changes`` would answer right, only slower.
- Before layout 5, no validation report held its key (:mod:`benchgraph.report_keys`): they are
  written, as ``benchgraph repair`` writes them. Without them ``audit-findings`` would list
  no finding of the store.

``notify`` is told what was done. A remote store has no layout file: ``benchgraph repair``
builds its summaries, deltas and report keys.
"""

from __future__ import annotations

from collections.abc import Callable

from benchgraph import changelog, identities, report_keys, summaries
from benchgraph.store import Store


def upgrade(store: Store, notify: Callable[[str], None] | None, layout: int = 0) -> None:
    """Bring ``store``, written in the layout ``layout`` (0: any earlier one), to the present
    layout (see the module), telling ``notify``: only the steps of the layouts after its own
    run. Safe to run again. Raises StoreError."""
    if layout < 3:
        identities.upgrade(store, notify)
    if layout < 4:
        summarised = summaries.check(store)
        if not summarised.exact:
            summaries.repair(store, summarised)
        deltas = changelog.check(store)
        if not deltas.exact:
            changelog.repair(store, deltas)
        if notify is not None and not (summarised.exact and deltas.exact):
            notify(
                f"benchgraph: this store was written before the audit summaries and the changes "
                f"record; built the summaries of {len(summarised.wrong)} versions and "
                f"{len(deltas.missing) + len(deltas.wrong)} deltas, once"
            )
    keys = report_keys.check(store)
    if not keys.exact:
        report_keys.repair(store, keys)
    if notify is not None and not keys.exact:
        notify(
            f"benchgraph: this store was written before the validation reports held their "
            f"keys; wrote the keys of {len({graph for graph, _ in keys.added})} reports, once"
        )
