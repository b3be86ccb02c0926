"""`ml`: every encoder with every scorer on one data path; encoders' receptive fields; pretrained vectors; the fused lookup."""
import math

import numpy
import pytest
import spacy
import torch

from spacy_gdcws.ml.shims import torch_shims
from spacy_gdcws.nn import IteratedDilatedCNN, LocalSelfAttentionEncoder
from tests.util import (
    ENCODERS,
    ROOT,
    SCORERS,
    char_blank,
    model_config,
    train_model,
)

TEXTS = ["我爱北京天安门。\n今天 天气很好", "", " ", "a", "北京\n\n大学", "２０１９年，ＡＢＣ公司。" * 3]


def train(model, sentences, steps=12, nlp=None):
    return train_model(model, sentences, steps, 0.01, nlp=nlp)


def words(nlp, texts=TEXTS):
    return [[t.text for t in doc] for doc in nlp.pipe(texts)]


@pytest.mark.parametrize("encoder", sorted(ENCODERS))
@pytest.mark.parametrize("scorer", sorted(SCORERS))
def test_every_encoder_with_every_scorer_trains_and_round_trips(encoder, scorer, ud_sentences, tmp_path):
    nlp, losses = train(model_config(encoder, scorer), ud_sentences)
    assert losses[-1] < 0.9 * losses[0]
    got = words(nlp)
    assert [doc.text for doc in nlp.pipe(TEXTS)] == TEXTS
    assert got == [[t.text for t in nlp(text)] for text in TEXTS]  # pipe == call
    nlp.to_disk(tmp_path / "nlp")
    assert words(spacy.load(tmp_path / "nlp")) == got
    again = char_blank()
    again.add_pipe("gdcws_segmenter", config={"model": model_config(encoder, scorer)})
    again.from_bytes(nlp.to_bytes())
    assert words(again) == got


def test_local_attention_masks_exactly_the_window():
    torch.manual_seed(0)
    enc = LocalSelfAttentionEncoder(width=8, depth=1, n_heads=2, d_ff=0, radius=2, dropout=0.0,
                                    relative_positions=False, relative_embeddings=False).eval()
    x = torch.randn(2, 9, 8)
    mask = torch.ones(2, 9, dtype=torch.bool)
    mask[1, 6:] = False
    from spacy_gdcws.nn.attention import attention_mask
    from spacy_gdcws.nn.san import band_mask

    allowed = attention_mask(mask, band_mask(9, 2))
    weights = enc.layers[0].attn.attention_weights(x, allowed, None)  # (B, H, T, T)
    pos = torch.arange(9)
    far = (pos[:, None] - pos[None, :]).abs() > 2
    assert (weights[:, :, far] == 0).all()
    assert (weights[0, :, ~far] > 0).all()
    assert (weights[1, :, :6, 6:] == 0).all()  # padding is never attended to by real characters


def test_relative_position_bias_shifts_attention_by_offset():
    """A learned bias for offset +1 multiplies each query's weight on its right
    neighbour by exp(bias), relative to the other keys; the window still holds."""
    from spacy_gdcws.nn.attention import attention_mask
    from spacy_gdcws.nn.san import RelativePositions, band_mask, relative_offsets

    torch.manual_seed(0)
    enc = LocalSelfAttentionEncoder(width=8, depth=1, n_heads=2, d_ff=0, radius=2, dropout=0.0,
                                    relative_positions=True, relative_embeddings=False).eval()
    x = torch.randn(1, 9, 8)
    allowed = attention_mask(torch.ones(1, 9, dtype=torch.bool), band_mask(9, 2))
    offsets = relative_offsets(9, 2)
    assert offsets[4].tolist() == [0, 0, 0, 1, 2, 3, 4, 4, 4]
    attn = enc.layers[0].attn
    plain = attn.attention_weights(x, allowed, enc.positions(0, offsets))  # zero bias at the start
    assert torch.allclose(plain, attn.attention_weights(x, allowed, None))
    with torch.no_grad():
        enc.relative_bias[0, 1, 3] = 1.5  # head 1, offset +1
    biased = attn.attention_weights(x, allowed, RelativePositions(offsets, bias=enc.relative_bias[0][:, offsets]))
    assert torch.allclose(biased[0, 0], plain[0, 0])  # head 0 untouched
    ratio = (biased[0, 1, 3, 4] / biased[0, 1, 3, 2]) / (plain[0, 1, 3, 4] / plain[0, 1, 3, 2])
    assert abs(ratio.item() - math.exp(1.5)) < 1e-4
    far = (torch.arange(9)[:, None] - torch.arange(9)[None, :]).abs() > 2
    assert (biased[:, :, far] == 0).all()
    enc.train()
    out = enc(x, torch.ones(1, 9, dtype=torch.bool)).left
    out.sum().backward()
    assert enc.relative_bias.grad is not None and enc.relative_bias.grad.abs().sum() > 0


def test_idcnn_receptive_field_is_as_computed():
    torch.manual_seed(0)
    enc = IteratedDilatedCNN(width=64, dilations=(1, 1, 2), iterations=4, kernel=3, dropout=0.0).eval()
    assert enc.receptive_field == 35  # the first plain convolution (3) plus 4 x (2 + 2 + 4)
    length, centre = 61, 30
    x = torch.randn(1, length, 64, requires_grad=True)
    out = enc(x, torch.ones(1, length, dtype=torch.bool)).left
    (out[0, centre] * torch.randn(64)).sum().backward()  # not a plain sum: LayerNorm outputs sum to a constant
    reached = x.grad[0].abs().sum(-1) > 0
    half = enc.receptive_field // 2
    assert reached.nonzero().squeeze(1).tolist() == list(range(centre - half, centre + half + 1))


def test_crf_tagger_rejects_gap_decoding_settings(ud_sentences):
    nlp = char_blank()
    with pytest.raises(ValueError, match="E044"):
        nlp.add_pipe("gdcws_segmenter", config={"model": model_config("bilstm", "crf"), "transition_weight": 1.0})
    nlp = char_blank()
    with pytest.raises(ValueError, match="E044"):
        nlp.add_pipe("gdcws_segmenter", config={"model": model_config("bilstm", "crf"), "loss": "crf"})


def test_pretrained_vectors_reach_the_model_and_are_saved(ud_sentences, tmp_path):
    nlp = char_blank()
    chars = sorted({c for s in ud_sentences for w in s.words for c in w})
    rng = numpy.random.default_rng(0)
    for c in chars[: len(chars) // 2]:
        nlp.vocab.set_vector(c, rng.normal(size=8).astype("f"))
    trained, losses = train(model_config("idcnn", "crf", vectors_width=8), ud_sentences, nlp=nlp)
    assert losses[-1] < losses[0]
    net = torch_shims(trained.get_pipe("gdcws_segmenter").model)[0].net
    assert tuple(net.embed.vectors.shape) == nlp.vocab.vectors.shape and nlp.vocab.vectors.n_keys == len(chars) // 2
    got = words(trained)
    trained.to_disk(tmp_path / "nlp")
    loaded = spacy.load(tmp_path / "nlp")
    assert torch.equal(torch_shims(loaded.get_pipe("gdcws_segmenter").model)[0].net.embed.vectors, net.embed.vectors)
    assert words(loaded) == got


def test_vectors_width_without_vectors_is_a_coded_error(ud_sentences):
    with pytest.raises(ValueError, match="E043"):
        train(model_config("idcnn", "crf", vectors_width=8), ud_sentences, steps=1)


@pytest.mark.parametrize("name", ["san", "idcnn", "bilstm"])
def test_encoder_configs_build(name):
    from spacy.util import load_config, load_model_from_config

    config = load_config(ROOT / "configs" / f"{name}.cfg")
    nlp = load_model_from_config(config, auto_fill=True, validate=True)
    assert nlp.get_pipe("segmenter").scores_tags


def test_the_documented_example_encoder_plugs_in(ud_sentences, tmp_path):
    """docs/add-an-encoder.md: one module (docs/examples/gru_encoder.py) plus its config."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gru_encoder", ROOT / "docs" / "examples" / "gru_encoder.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    config = model_config("bilstm", "crf")
    config["encoder"] = {"@architectures": "my_project.BiGRU.v1", "width": 32, "dropout": 0.0}
    nlp, losses = train(config, ud_sentences)
    assert losses[-1] < 0.9 * losses[0]
    nlp.to_disk(tmp_path / "nlp")
    assert words(spacy.load(tmp_path / "nlp")) == words(nlp)


def test_relative_embeddings_equal_shaw_attention_by_brute_force():
    """Shaw et al.'s relative attention, one query and key at a time:
    `w_ij = softmax_j((q_i . (k_j + a^K_{j-i})) / sqrt(d) + b_{j-i})` over the window,
    `out_i = sum_j w_ij (v_j + a^V_{j-i})`, then the output projection."""
    torch.manual_seed(0)
    radius, length, n_heads, width = 2, 7, 2, 8
    enc = LocalSelfAttentionEncoder(width=width, depth=1, n_heads=n_heads, d_ff=0, radius=radius, dropout=0.0,
                                    relative_positions=True, relative_embeddings=True).eval()
    with torch.no_grad():
        enc.relative_bias.normal_()
        enc.relative_keys.normal_()
        enc.relative_values.normal_()
    x = torch.randn(1, length, width)
    mask = torch.ones(1, length, dtype=torch.bool)
    mask[0, 6] = False  # one padded key
    from spacy_gdcws.nn.attention import attention_mask
    from spacy_gdcws.nn.san import band_mask, relative_offsets

    attn = enc.layers[0].attn
    allowed = attention_mask(mask, band_mask(length, radius))
    got = attn(x, allowed, enc.positions(0, relative_offsets(length, radius)))
    q, k, v = attn._project(x)  # (1, H, T, d_head)
    d_head = width // n_heads
    ctx = torch.zeros(1, n_heads, length, d_head)
    for h in range(n_heads):
        for i in range(length):
            keys = [j for j in range(length) if abs(j - i) <= radius and (mask[0, j] or j == i)]
            logits = torch.stack([
                q[0, h, i] @ (k[0, h, j] + enc.relative_keys[0, j - i + radius]) / math.sqrt(d_head)
                + enc.relative_bias[0, h, j - i + radius] for j in keys])
            weights = torch.softmax(logits, dim=0)
            ctx[0, h, i] = sum(w * (v[0, h, j] + enc.relative_values[0, j - i + radius])
                               for w, j in zip(weights, keys))
    expected = attn.out(ctx.transpose(1, 2).reshape(1, length, width))
    assert torch.allclose(got, expected, atol=1e-5)
    # zero vectors (the start of training) give plain local attention with the bias
    with torch.no_grad():
        enc.relative_keys.zero_()
        enc.relative_values.zero_()
    offsets = relative_offsets(length, radius)
    from spacy_gdcws.nn.san import RelativePositions

    plain = attn(x, allowed, RelativePositions(offsets, bias=enc.relative_bias[0][:, offsets]))
    assert torch.allclose(attn(x, allowed, enc.positions(0, offsets)), plain, atol=1e-6)


def test_prediction_sums_one_fused_table_and_rebuilds_it_when_weights_change():
    """Without autograd the character and bigram terms are one `embedding_bag` over
    [characters; bigrams projected left; projected right]: the same numbers as the
    trained lookup, rebuilt after the weights change (an update or a load)."""
    from spacy_gdcws.nn import CharEmbedding

    torch.manual_seed(0)
    embed = CharEmbedding(16, 50, bigrams=True, bigram_rows=80, bigram_width=8, n_lexicon_features=4,
                          lexicon_dropout=0.0, positions=False, dropout=0.0, vectors_width=0).eval()
    chars, bigrams = torch.randint(0, 50, (3, 7, 2)), torch.randint(0, 80, (3, 8, 2))
    lexicon = torch.rand(3, 7, 4)

    def trained_lookup():
        return embed._lookup(chars, bigrams) + embed.lexicon_proj(lexicon)

    with torch.no_grad():
        assert torch.allclose(embed(chars, bigrams, lexicon), trained_lookup(), atol=1e-6)
        first = embed._fused[1]
        embed.bigram_embed.weight.add_(0.5)
        assert torch.allclose(embed(chars, bigrams, lexicon), trained_lookup(), atol=1e-6)
        assert embed._fused[1] is not first
    embed.train()
    out = embed(chars, bigrams, lexicon)  # training: the lookup the gradients flow through
    out.sum().backward()
    assert embed.bigram_proj.weight.grad is not None
