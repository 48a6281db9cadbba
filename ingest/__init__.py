"""Source-page parsers and the records-to-RDF mapper. Parsers never import rdflib."""
