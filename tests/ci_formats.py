"""Readers of the CI reports for tests: JUnit XML checked against the Jenkins/Ant junit-10
schema (tests/schemas/junit-10.xsd) with xmlschema and read with junitparser, and Markdown
rendered as GitHub-flavoured tables with markdown-it-py."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import junitparser
import xmlschema
from markdown_it import MarkdownIt

SCHEMA = Path(__file__).parent / "schemas" / "junit-10.xsd"


@cache
def junit_schema() -> xmlschema.XMLSchema10:
    return xmlschema.XMLSchema10(str(SCHEMA))


def read_junit(path: Path) -> junitparser.JUnitXml:
    """The report, once the schema has accepted it (raises when it does not)."""
    junit_schema().validate(str(path))
    xml = junitparser.JUnitXml.fromfile(str(path))
    assert isinstance(xml, junitparser.JUnitXml)
    return xml


def markdown_tables(text: str) -> list[list[list[str]]]:
    """Every table the text renders to (as GitHub would: GFM tables), as rows of cell texts,
    the header row first."""
    tokens = MarkdownIt("gfm-like").parse(text)
    tables: list[list[list[str]]] = []
    row: list[str] | None = None
    for token in tokens:
        if token.type == "table_open":
            tables.append([])
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close" and row is not None:
            tables[-1].append(row)
            row = None
        elif token.type == "inline" and row is not None:
            row.append("".join(child.content for child in token.children or []))
    return tables
