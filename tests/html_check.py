"""A small HTML checker for the pages the site draws: the mistakes a browser silently repairs in its
own way, so the page looks or reads differently than the template says.

- a block (a list, a div, a table, a form…) inside a <p>: the browser ends the paragraph before it,
  and the </p> after it becomes an empty paragraph of its own (Django's error list in a form row);
- an end tag that closes nothing, or closes an element while one opened inside it is still open;
- an element never closed;
- an id used twice (a label, aria-describedby or htmx target then finds the first one only);
- a label, aria-describedby, aria-labelledby or aria-controls naming an id the page does not have;
- a form field with no label (none naming it, none round it, no aria-label or aria-labelledby);
- a heading more than one level below the one before it (an h3 after an h1);
- a list item given a role (screen readers no longer count it in its list);
- a <time datetime> that is no date and time (Django's ``date:'c'`` writes microseconds: at most 3 digits).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# Elements whose end tag HTML lets the next element or their parent's end imply.
OPTIONAL_END = {
    "li",
    "dt",
    "dd",
    "p",
    "option",
    "optgroup",
    "tr",
    "td",
    "th",
    "thead",
    "tbody",
    "tfoot",
    "rt",
    "rp",
    "colgroup",
    "html",
    "head",
    "body",
}
# A start tag of one of these closes an open <p> (the HTML parsing algorithm's list).
CLOSES_P = {
    "address",
    "article",
    "aside",
    "blockquote",
    "details",
    "dialog",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "pre",
    "search",
    "section",
    "table",
    "ul",
}
REFERENCES = ("aria-describedby", "aria-labelledby", "aria-controls")
# Where the parser stops looking for an open <p> ("button scope").
P_SCOPE_ENDS = {
    "applet",
    "button",
    "caption",
    "html",
    "marquee",
    "math",
    "object",
    "svg",
    "table",
    "td",
    "template",
    "th",
}
UNLABELLED_OK = {"hidden", "submit", "button", "reset", "image"}
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
DATETIME = re.compile(r"\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d{1,3})?)?(Z|[+-]\d\d:?\d\d))?")


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.problems: list[str] = []
        self.ids: set[str] = set()
        self.label_for: set[str] = set()
        self.referenced: list[tuple[str, str]] = []
        self.fields: list[tuple[str, str, bool]] = []  # (tag, id, named) of form fields
        self.headings: list[str] = []  # problems of heading levels, for a whole page only
        self.heading_level = 0

    def _where(self) -> str:
        line, column = self.getpos()
        return f"line {line}, column {column + 1}"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._element(tag, dict(attrs))
        if tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._element(tag, dict(attrs))

    def _element(self, tag: str, attrs: dict[str, str | None]) -> None:
        if tag in CLOSES_P and self._in_paragraph():
            self.problems.append(f"<{tag}> inside <p> ({self._where()}): the browser ends the paragraph before it")
        if tag in HEADINGS:
            if HEADINGS[tag] > self.heading_level + 1 and self.heading_level:
                self.headings.append(f"<{tag}> after <h{self.heading_level}> ({self._where()}): a level skipped")
            self.heading_level = HEADINGS[tag]
        if tag == "li" and self.open[-1:] in (["ul"], ["ol"]) and attrs.get("role") not in (None, "listitem"):
            self.problems.append(f'<li role="{attrs["role"]}"> in a list ({self._where()})')
        if tag == "time" and "datetime" in attrs and not DATETIME.fullmatch(attrs["datetime"] or ""):
            self.problems.append(f'<time datetime="{attrs["datetime"]}"> is no date and time ({self._where()})')
        element_id = attrs.get("id")
        if element_id:
            if element_id in self.ids:
                self.problems.append(f'id "{element_id}" used twice ({self._where()})')
            self.ids.add(element_id)
        if tag == "label" and attrs.get("for"):
            self.label_for.add(attrs["for"])
        for name in REFERENCES:
            for target in (attrs.get(name) or "").split():
                self.referenced.append((f'{name}="{target}" ({self._where()})', target))
        if tag == "label" and attrs.get("for"):
            self.referenced.append((f'<label for="{attrs["for"]}"> ({self._where()})', attrs["for"]))
        if tag in ("input", "select", "textarea") and (attrs.get("type") or "").lower() not in UNLABELLED_OK:
            named = bool(attrs.get("aria-label") or attrs.get("aria-labelledby") or "label" in self.open)
            self.fields.append((f"<{tag} name={attrs.get('name')!r}> ({self._where()})", element_id or "", named))

    def _in_paragraph(self) -> bool:
        for name in reversed(self.open):
            if name == "p":
                return True
            if name in P_SCOPE_ENDS:
                return False
        return False

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if tag not in self.open:
            if tag != "p":  # a </p> with no <p> open is reported where the block was met
                self.problems.append(f"</{tag}> closes nothing ({self._where()})")
            return
        while self.open:
            top = self.open.pop()
            if top == tag:
                return
            if top not in OPTIONAL_END:
                self.problems.append(f"</{tag}> closes <{tag}> while <{top}> inside it is open ({self._where()})")


def html_problems(html: str, *, whole_page: bool = True) -> list[str]:
    """Every problem above in ``html``; a part of a page (an htmx answer) may name ids outside it."""
    checker = _Checker()
    checker.feed(html)
    checker.close()
    problems = checker.problems
    problems += [f"<{tag}> never closed" for tag in checker.open if tag not in OPTIONAL_END]
    if whole_page:
        problems += checker.headings
        problems += [
            f"{where} names no element of the page" for where, target in checker.referenced if target not in checker.ids
        ]
        problems += [
            f"{where} has no label"
            for where, element_id, named in checker.fields
            if not named and element_id not in checker.label_for
        ]
    return problems
