"""The word-level second stage: a biaffine dependency parser and tagger (Dozat & Manning 2017), and
an entity tagger.

One word encoder (hashed word, character and lexicon features -> BiLSTM) feeds five heads: UPOS,
XPOS, arcs (a biaffine scorer over every head candidate, the root included), relations (a
biaffine scorer per label on a dependent and its head) and, where the training data has entities,
IOB2 entity tags (each word's tag logits; the component decodes them under IOB2's constraints). Inputs are row ids computed outside the
module (`spacy_gdcws.data.features.words`), so the module has no vocabulary. The module scores; its
loss is the component's (`spacy_gdcws.parse.loss`), as the segmenter's is (`spacy_gdcws.pipeline.loss`).
"""
from typing import List, Optional, Tuple

import torch
from torch import nn
from torch.nn import functional

from spacy_gdcws.errors import Errors
from spacy_gdcws.nn.bilstm import run_bilstm
from spacy_gdcws.nn.dropout import Dropout

class Biaffine(nn.Module):
    """`s[b, o, i, j] = x[b, i] W[o] y[b, j]` with a bias column on each side (Dozat & Manning's
    biaffine layer): `n_out` scores for every (dependent i, head j) pair."""

    def __init__(self, n_in: int, n_out: int = 1, bias_x: bool = True, bias_y: bool = True) -> None:
        super().__init__()
        self.bias_x, self.bias_y = bias_x, bias_y
        self.weight = nn.Parameter(torch.zeros(n_out, n_in + bias_x, n_in + bias_y))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """x (B, I, n), y (B, J, n) -> (B, O, I, J), as two batched matrix products."""
        if self.bias_x:
            x = torch.cat([x, x.new_ones(x.shape[:-1] + (1,))], -1)
        if self.bias_y:
            y = torch.cat([y, y.new_ones(y.shape[:-1] + (1,))], -1)
        xw = torch.matmul(x.unsqueeze(1), self.weight)  # (B, O, I, n)
        return torch.matmul(xw, y.unsqueeze(1).transpose(-1, -2))

    def pairs(self, x: torch.Tensor, y: torch.Tensor, chunk: int = 256) -> torch.Tensor:
        """The scores of N given pairs: x (N, n + bias_x), y (N, n + bias_y), bias columns
        included -> (N, O): a matrix product, then one small product per pair (`bmm`), `chunk`
        pairs at a time so that the (chunk, O, n) intermediate stays in the CPU's cache (one
        (N, O, n) product was 30% of the parser's time on one thread)."""
        n_out, n_x, n_y = self.weight.shape
        weight = self.weight.permute(1, 0, 2).reshape(n_x, n_out * n_y)
        parts = [torch.bmm((x[s: s + chunk] @ weight).view(-1, n_out, n_y), y[s: s + chunk, :, None])[..., 0]
                 for s in range(0, x.shape[0], chunk)]
        return torch.cat(parts) if parts else x.new_zeros((0, n_out))


class MLP(nn.Module):
    """Linear + LeakyReLU + dropout (the arc and label projections)."""

    def __init__(self, n_in: int, n_out: int, dropout: float) -> None:
        super().__init__()
        self.linear = nn.Linear(n_in, n_out)
        self.dropout = Dropout(dropout)
        nn.init.orthogonal_(self.linear.weight)
        nn.init.zeros_(self.linear.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(functional.leaky_relu(self.linear(x), 0.1))


class WordCNN(nn.Module):
    """Residual convolutions over the words (kernel 3, LeakyReLU, LayerNorm): a parallel
    alternative to the BiLSTM, cheaper on a CPU; `depth` layers see 2 * depth words around."""

    def __init__(self, n_in: int, width: int, depth: int, dropout: float) -> None:
        super().__init__()
        self.project = nn.Linear(n_in, width)
        self.convs = nn.ModuleList(nn.Conv1d(width, width, 3, padding=1) for _ in range(depth))
        self.norms = nn.ModuleList(nn.LayerNorm(width) for _ in range(depth))
        self.dropout = Dropout(dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = self.project(x) * mask
        for conv, norm in zip(self.convs, self.norms):
            out = functional.leaky_relu(conv(h.transpose(1, 2)).transpose(1, 2), 0.1)
            h = norm(h + self.dropout(out)) * mask
        return h


class BiaffineParserNet(nn.Module):
    """Word features -> BiLSTM -> UPOS, XPOS, arc, relation and entity-tag scores. Every size comes from the
    model's config (`spacy_gdcws.BiaffineParser.v3`), the output rows from the training data.

    feature_rows (List[int]): Rows of each hashed feature column's table (column k of `feats`).
    feature_widths (List[int]): Width of each column's table; the embeddings are concatenated.
    char_rows, char_width (int): The table of the characters inside each word (mean-pooled);
        char_width 0 = off.
    word_dropout (float): In training, a word's first feature column (the word itself) is dropped
        to the unknown row with this probability, so rare words lean on their characters.
    encoder (str): "lstm" (a BiLSTM) or "cnn" (`WordCNN`).
    lstm_width (int): Hidden width of each LSTM direction (the CNN's width is twice this).
    lstm_depth (int): Stacked BiLSTM (or CNN) layers.
    arc_width, label_width (int): Widths of the arc and relation projections.
    entity_width (int): Width of the entity tagger's hidden layer.
    n_upos, n_xpos, n_labels (int): Rows of the three output layers.
    n_ents (int): Rows of the entity tagger's output (its IOB2 tags); 0 = no entity tagger.
    root_label (int): The row of the root's relation.
    dropout (float): Dropout on embeddings, between LSTM layers and in the projections.

    forward(*inputs, task="score"):
        task "score": inputs (feats (B, T, F), chars (B, T, C), lengths (B,)), LongTensors of feature
            rows, character rows (0 = padding) and words per sentence. RETURNS (arc logits (B, T, T + 1),
            padding heads and each word's own row at -inf; the relation projections of the words
            (B, T, d) and of the heads, the root first (B, T + 1, d); UPOS, XPOS and entity tag logits
            (B, T, n); the entity tags' transition scores (n, n); without an entity tagger, (B, T, 0) and (0, 0)).
        task "label": inputs (dep_states (N, d + 1), head_states (N, d + 1)), the relation projections
            of N arcs' dependents and heads with a column of ones (`spacy_gdcws.ml.parser.arc_states`).
            RETURNS relation logits (N, n_labels).
    """

    def __init__(self, feature_rows: List[int], feature_widths: List[int], *, char_rows: int, char_width: int,
                 word_dropout: float, encoder: str, lstm_width: int, lstm_depth: int, arc_width: int,
                 label_width: int, entity_width: int, n_upos: int, n_xpos: int, n_labels: int, n_ents: int,
                 root_label: int, dropout: float) -> None:
        super().__init__()
        if len(feature_rows) != len(feature_widths) or not feature_rows:
            raise ValueError(Errors.E114.format(n_rows=len(feature_rows), n_widths=len(feature_widths)))
        self.tables = nn.ModuleList(nn.Embedding(rows, width, padding_idx=0)
                                    for rows, width in zip(feature_rows, feature_widths))
        for table in self.tables:
            nn.init.normal_(table.weight, std=table.embedding_dim ** -0.5)
            with torch.no_grad():
                table.weight[0].zero_()
        self.char_width = char_width
        n_in = sum(feature_widths)
        if char_width:
            self.chars = nn.Embedding(char_rows, char_width, padding_idx=0)
            nn.init.normal_(self.chars.weight, std=char_width ** -0.5)
            n_in += char_width
        self.word_dropout = word_dropout
        self.embed_dropout = Dropout(dropout)
        self.root = nn.Parameter(torch.randn(n_in) * n_in ** -0.5)
        if encoder not in ("lstm", "cnn"):
            raise ValueError(Errors.E119.format(encoder=encoder))
        self.encoder = encoder
        n_hidden = 2 * lstm_width
        self.lstm: Optional[nn.LSTM] = None
        self.cnn: Optional[WordCNN] = None
        if encoder == "lstm":
            self.lstm = nn.LSTM(n_in, lstm_width, num_layers=lstm_depth, batch_first=True,
                                bidirectional=True, dropout=dropout if lstm_depth > 1 else 0.0)
        else:
            self.cnn = WordCNN(n_in, n_hidden, lstm_depth, dropout)
        self.hidden_dropout = Dropout(dropout)
        self.arc_dep, self.arc_head = MLP(n_hidden, arc_width, dropout), MLP(n_hidden, arc_width, dropout)
        self.label_dep, self.label_head = MLP(n_hidden, label_width, dropout), MLP(n_hidden, label_width, dropout)
        self.arc_attn = Biaffine(arc_width, 1, bias_x=True, bias_y=False)
        self.label_attn = Biaffine(label_width, n_labels, bias_x=True, bias_y=True)
        self.upos = nn.Sequential(MLP(n_hidden, label_width * 2, dropout), nn.Linear(label_width * 2, n_upos))
        self.xpos = nn.Sequential(MLP(n_hidden, label_width * 2, dropout), nn.Linear(label_width * 2, n_xpos))
        self.root_label = root_label
        self.n_labels = n_labels
        # made after every other layer: the parser's layers draw the same initial weights with or
        # without it; no scalar attribute of its own, so a model without it keeps its fingerprint
        # (`ml.fingerprint`: the structure saved parsers are checked against)
        self.ents: Optional[nn.Sequential] = None
        if n_ents:
            self.ents = nn.Sequential(MLP(n_hidden, entity_width, dropout), nn.Linear(entity_width, n_ents))
            # a linear-chain CRF's scores of one tag following another (IOB2's constraints are the
            # loss's and the decoder's, not learnt)
            self.ent_steps = nn.Parameter(torch.zeros(n_ents, n_ents))

    def embed(self, feats: torch.Tensor, chars: torch.Tensor) -> torch.Tensor:
        """(B, T, F), (B, T, C) -> (B, T + 1, n_in): the words' embeddings after the root's."""
        if self.training and self.word_dropout:
            drop = torch.rand(feats.shape[:2], device=feats.device) < self.word_dropout
            word = feats[..., 0].masked_fill(drop & (feats[..., 0] > 0), 1)
            feats = torch.cat([word[..., None], feats[..., 1:]], -1)
        parts = [table(feats[..., k]) for k, table in enumerate(self.tables)]
        if self.char_width:
            mask = (chars > 0).unsqueeze(-1).float()
            summed = (self.chars(chars) * mask).sum(2)
            parts.append(summed / mask.sum(2).clamp(min=1.0))
        x = torch.cat(parts, -1)
        root = self.root.expand(x.shape[0], 1, x.shape[-1])
        return self.embed_dropout(torch.cat([root, x], 1))

    def encode(self, feats: torch.Tensor, chars: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """(B, T + 1, 2 * lstm_width): contextual states, the root at position 0."""
        x = self.embed(feats, chars)
        if self.cnn is not None:
            mask = (torch.arange(x.shape[1], device=x.device)[None, :] <= lengths[:, None]).unsqueeze(-1)
            return self.hidden_dropout(self.cnn(x, mask.to(x.dtype)))
        assert self.lstm is not None
        return self.hidden_dropout(run_bilstm(self.lstm, x, lengths + 1))

    def scores(self, feats: torch.Tensor, chars: torch.Tensor, lengths: torch.Tensor) -> Tuple[torch.Tensor, ...]:
        """Arc logits (B, T, T + 1) (padding heads and each word's own row at -inf), the relation
        projections of the words (B, T, d) and of the heads (B, T + 1, d), UPOS, XPOS and entity tag
        logits (B, T, n)."""
        h = self.encode(feats, chars, lengths)
        arc = self.arc_attn(self.arc_dep(h[:, 1:]), self.arc_head(h)).squeeze(1)
        n_heads = h.shape[1]
        head_mask = torch.arange(n_heads, device=h.device)[None, :] <= lengths[:, None]
        arc = arc.masked_fill(~head_mask[:, None, :], float("-inf"))
        # no word heads itself (word i is head row i + 1)
        n_words = arc.shape[1]
        self_arc = torch.arange(n_words, device=h.device)[:, None] + 1 == torch.arange(n_heads, device=h.device)[None, :]
        arc = arc.masked_fill(self_arc[None], float("-inf"))
        words = h[:, 1:]
        if self.ents is not None:
            ents, steps = self.ents(words), self.ent_steps
        else:
            ents, steps = words.new_zeros(words.shape[:2] + (0,)), words.new_zeros((0, 0))
        return arc, self.label_dep(words), self.label_head(h), self.upos(words), self.xpos(words), ents, steps

    def forward(self, *inputs: torch.Tensor, task: str = "score") -> object:
        if task == "label":
            return self.label_attn.pairs(*inputs)
        return self.scores(*inputs)
