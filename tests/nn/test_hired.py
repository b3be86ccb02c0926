"""`nn.gd_encoder`: HiRED's word pooling."""
import torch

from spacy_gdcws.nn import word_sum_pool


def test_each_character_gets_the_sum_over_its_word():
    # words: [0, 1] [2] [3, 4, 5]
    x = torch.arange(12, dtype=torch.float32).view(1, 6, 2)
    boundaries = torch.tensor([[False, True, True, False, False]])
    pooled = word_sum_pool(x, boundaries)
    w1 = x[0, 0] + x[0, 1]
    w2 = x[0, 2]
    w3 = x[0, 3] + x[0, 4] + x[0, 5]
    expected = torch.stack([w1, w1, w2, w3, w3, w3])
    assert torch.equal(pooled[0], expected)


def test_batches_pool_independently():
    x = torch.ones(2, 3, 1)
    boundaries = torch.tensor([[False, False], [True, True]])
    pooled = word_sum_pool(x, boundaries)
    assert pooled[0].flatten().tolist() == [3.0, 3.0, 3.0]
    assert pooled[1].flatten().tolist() == [1.0, 1.0, 1.0]
