"""The page's words follow the page's language: a word is looked up with t() when it is shown, never frozen
while a module loads (the header's language switch is in place: static/app.js switchLanguage)."""
from __future__ import annotations

import re

from lab_site import ROOT

def words_frozen_at_import(source: str) -> list[str]:
    """Lines of a page module that call t() while the module loads: in a top-level `const`/`let` (or the
    object or array literal it opens) rather than inside a function. Such a word stays in the language the
    page opened in after the header's switch (static/words/i18n.js: use byLang(() => ...) instead)."""
    frozen, table = [], False
    for number, line in enumerate(source.split("\n"), 1):
        head = re.match(r"^(export )?(const|let) \w+ = (.*)$", line)
        if head:
            value = head.group(3)
            if re.search(r"\bt\(",
                         value) and not value.lstrip().startswith(("byLang(", "(")) and "=>" not in value[:40]:
                frozen.append(f"{number}: {line.strip()}")
            table = bool(re.search(r"[\[{]\s*$", value)) and not value.lstrip().startswith("byLang(")
            continue
        if table:
            if re.match(r"^[}\])]", line):
                table = False
            elif re.search(r"\bt\(", line) and "=>" not in line.split("t(")[0]:
                frozen.append(f"{number}: {line.strip()}")
    return frozen


def test_no_page_word_is_frozen_at_import():
    pages = [p for folder in ("core", "tools", "charts") for p in sorted((ROOT / "static" / folder).glob("*.js"))]
    frozen = {str(p.relative_to(ROOT)): words_frozen_at_import(p.read_text()) for p in pages}
    assert not {k: v for k, v in frozen.items() if v}, frozen
    source = "const A = { x: t('k') };\nconst B = byLang(() => ({ y: t('k') }));\n"
    assert words_frozen_at_import(source) == ["1: const A = { x: t('k') };"]
