"""[2] Input preparation: a tiny BPE learned from five sentences, optional byte fallback, plus a minimal chat template.

`BPETokenizer.train(corpus, n_merges)` counts adjacent symbol pairs inside words
(each word ends with the marker "</w>"), merges the most frequent pair (ties broken
by the larger pair, as the seed does) and repeats. The vocabulary is
`<bos>`, `<eos>` then every symbol left in the corpus, every corpus character and "</w>".

    >>> tok = BPETokenizer.train(["xin chao model", "xin chao ban", "model hoc token",
    ...                           "ban hoc model", "xin chao token"], 10)
    >>> tok.encode("ban hoc model")
    (['<bos>', 'b', 'a', 'n</w>', 'h', 'o', 'c', '</w>', 'model</w>'], [0, 4, 3, 16, 8, 17, 5, 2, 14])
    >>> tok.unknown("xin chào")
    ['à']
    >>> tok.vocab_size
    22

With `byte_fallback=True` (BYTE_FALLBACK=on) the vocabulary gains 256 byte tokens `<0x00>`..`<0xFF>`
after the seed's symbols (the seed's IDs stay put), and a piece the vocabulary lacks is spelled
character by character, an unknown character as its UTF-8 bytes, as SentencePiece's byte fallback
does: nothing is unknown any more, accented text just costs more tokens.

    >>> tok = BPETokenizer.train(["xin chao model", "xin chao ban", "model hoc token",
    ...                           "ban hoc model", "xin chao token"], 10, byte_fallback=True)
    >>> tok.pieces("chào")
    ['<bos>', 'c', 'h', '<0xC3>', '<0xA0>', 'o</w>']
    >>> tok.unknown("xin chào"), tok.vocab_size, tok.decode(tok.encode("xin chào")[1])
    ([], 278, 'xin chào')

The chat template is only `<bos>` in front: a real chat template (Llama 3's, ChatML) also wraps the
text in role markers (system / user / assistant headers, end-of-turn tokens), which cost tokens too.

Leaves out: byte-level pre-tokenization (GPT-2 maps every byte to a symbol before BPE; here bytes are
only the fallback), splitting beyond whitespace, and, with byte fallback off, unknown symbols:
`unknown()` names them so the engine can refuse the request with 400 instead of crashing as the seed does.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

BOS, EOS = 0, 1                           # the seed's special tokens, the vocabulary's first two IDs
# the seed's five training sentences (the generated workload draws its words from them too)
CORPUS = ("xin chao model", "xin chao ban", "model hoc token", "ban hoc model", "xin chao token")
WORD_END = "</w>"
LONG_TEXT, MAX_TEXTS = 200, 2048          # texts longer than REQUESTS' 80 characters (generated ones) are cached
BYTE_TOKENS = tuple(f"<0x{b:02X}>" for b in range(256))   # SentencePiece's spelling of a byte token


def byte_pieces(ch: str) -> list[str]:
    """A character as the byte tokens of its UTF-8 encoding: 'à' -> ['<0xC3>', '<0xA0>']."""
    return [BYTE_TOKENS[b] for b in ch.encode("utf-8")]


def _count_pairs(words: list[list[str]]) -> dict:
    counts: dict = {}
    for w in words:
        for pair in zip(w, w[1:]):
            counts[pair] = counts.get(pair, 0) + 1
    return counts


def _merge_word(w: list[str], pair: tuple[str, str]) -> list[str]:
    merged, out, i = "".join(pair), [], 0
    while i < len(w):
        if i + 1 < len(w) and (w[i], w[i + 1]) == pair:
            out.append(merged)
            i += 2
        else:
            out.append(w[i])
            i += 1
    return out


@dataclass(slots=True)
class BPETokenizer:
    merges: list[tuple[str, str]]
    id_to_token: list[str]
    token_to_id: dict
    byte_fallback: bool = False    # the vocabulary ends with the 256 BYTE_TOKENS; unknown characters use them
    # bpe_word results (tokenizers are cached across runs)
    _words: dict = field(default_factory=dict, repr=False, compare=False)
    _texts: dict = field(default_factory=dict, repr=False, compare=False)   # pieces of long texts (at most MAX_TEXTS)

    @classmethod
    def train(cls, corpus, n_merges: int, byte_fallback: bool = False) -> "BPETokenizer":
        words = [list(w) + [WORD_END] for text in corpus for w in text.split()]
        merges = []
        for _ in range(n_merges):
            counts = _count_pairs(words)
            if not counts:
                break
            pair = max(counts, key=lambda p: (counts[p], p))
            merges.append(pair)
            words = [_merge_word(w, pair) for w in words]
        chars = {c for t in corpus for c in t.replace(" ", "")}
        symbols = sorted({s for w in words for s in w} | chars | {WORD_END})
        id_to_token = ["<bos>", "<eos>"] + symbols + (list(BYTE_TOKENS) if byte_fallback else [])
        return cls(merges, id_to_token, {t: i for i, t in enumerate(id_to_token)}, byte_fallback)

    @property
    def vocab_size(self) -> int:
        return len(self.id_to_token)

    @property
    def n_byte_tokens(self) -> int:
        """256 with byte fallback, else 0: the vocabulary's last rows (the model's extra embedding rows)."""
        return len(BYTE_TOKENS) if self.byte_fallback else 0

    def spell(self, piece: str) -> list[str]:
        """Byte fallback for a piece the vocabulary lacks: its known characters one by one, the others as
        UTF-8 byte tokens, then "</w>" if the piece ended a word."""
        end = piece.endswith(WORD_END)
        out = []
        for ch in piece[:-len(WORD_END)] if end else piece:
            out += [ch] if ch in self.token_to_id else byte_pieces(ch)
        return out + [WORD_END] if end else out

    def bpe_word(self, word: str) -> list[str]:
        known = self._words.get(word)
        if known is not None:
            return list(known)
        tokens = self._bpe_word(word)
        self._words[word] = tuple(tokens)
        return tokens

    def _bpe_word(self, word: str) -> list[str]:
        tokens = list(word) + [WORD_END]
        for left, right in self.merges:
            i = 0
            while i < len(tokens) - 1:
                if (tokens[i], tokens[i + 1]) == (left, right):
                    tokens[i:i + 2] = [left + right]
                else:
                    i += 1
        return tokens

    def pieces(self, text: str) -> list[str]:
        """Chat template: <bos> + the BPE pieces of every whitespace-separated word."""
        if len(text) > LONG_TEXT:                # a generated prompt: tokenized several times per run, cached
            known = self._texts.get(text)
            if known is None:
                if len(self._texts) >= MAX_TEXTS:
                    self._texts.clear()
                known = self._texts[text] = tuple(self._pieces(text))
            return list(known)
        return self._pieces(text)

    def _pieces(self, text: str) -> list[str]:
        tokens, known = ["<bos>"], self._words
        for word in text.split():
            pieces = known.get(word) or self.bpe_word(word)      # a generated prompt repeats a few dozen words
            if self.byte_fallback:
                pieces = [q for p in pieces for q in ([p] if p in self.token_to_id else self.spell(p))]
            tokens += pieces
        return tokens

    def merge_steps(self, text: str) -> list[dict]:
        """How BPE turns `text` into pieces, for the page's picture: every word's characters plus "</w>",
        then the pieces after each merge (in training order) that changed something, with how many
        places it merged. The last step's pieces, after <bos>, are `pieces(text)`.

            >>> steps = BPETokenizer.train(["ab ab"], 2).merge_steps("ab b")
            >>> [(s["merge"], s["count"], len(s["pieces"])) for s in steps]
            [(None, 0, 5), ('b</w>', 2, 3), ('ab</w>', 1, 2)]
        """
        order = text.split()
        times = Counter(order)                   # each distinct word merged once (a generated prompt: a few dozen)
        words = {u: list(u) + [WORD_END] for u in times}
        steps = [dict(merge=None, rank=None, count=0, pieces=[p for w in order for p in words[w]])]
        for rank, pair in enumerate(self.merges):
            merged = {u: _merge_word(w, pair) for u, w in words.items()}
            count = sum((len(w) - len(merged[u])) * times[u] for u, w in words.items())
            if not count:
                continue
            words = merged
            steps.append(dict(merge="".join(pair), rank=rank, count=count, pieces=[p for w in order for p in words[w]]))
        return steps

    def unknown_chars(self, text: str) -> list[str]:
        """Characters of `text` that never appear in the training corpus, in order."""
        known = set("".join(t for t in self.id_to_token[2:self.vocab_size - self.n_byte_tokens]).replace(WORD_END, ""))
        out = []
        for ch in "".join(text.split()):
            if ch not in known and ch not in out:
                out.append(ch)
        return out

    def unknown(self, text: str) -> list[str]:
        """Pieces of `text` that are not in the vocabulary (characters the BPE never saw), in order."""
        if len(text) > LONG_TEXT:                # a generated prompt: only its distinct pieces need looking up
            return [p for p in dict.fromkeys(self.pieces(text)) if p not in self.token_to_id]
        seen, out = set(), []
        for piece in self.pieces(text):
            if piece not in self.token_to_id and piece not in seen:
                seen.add(piece)
                out.append(piece)
        return out

    def encode(self, text: str) -> tuple[list[str], list[int]]:
        """(tokens, ids); raises KeyError on unknown pieces (check `unknown()` first)."""
        tokens = self.pieces(text)
        if len(text) > LONG_TEXT:
            return tokens, list(map(self.token_to_id.__getitem__, tokens))
        return tokens, [self.token_to_id[t] for t in tokens]

    def token(self, token_id: int) -> str:
        return self.id_to_token[token_id]

    def decode(self, ids) -> str:
        """The text of `ids`; runs of byte tokens are joined and read as UTF-8 (a broken sequence shows as �)."""
        out, run = [], bytearray()
        for i in ids:
            if i in (BOS, EOS):
                continue
            t = self.id_to_token[i]
            if self.byte_fallback and i >= self.vocab_size - self.n_byte_tokens:
                run.append(i - (self.vocab_size - self.n_byte_tokens))
                continue
            out.append(run.decode("utf-8", errors="replace") + t)
            run = bytearray()
        out.append(run.decode("utf-8", errors="replace"))
        return "".join(out).replace(WORD_END, " ").strip()
