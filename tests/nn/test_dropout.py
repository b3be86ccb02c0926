"""`nn.dropout.Dropout`: torch's dropout distribution with a uniform-draw mask on the CPU."""
import pytest
import torch

from spacy_gdcws.nn.dropout import Dropout


def test_training_keeps_each_element_with_probability_one_minus_p_and_rescales():
    torch.manual_seed(0)
    layer = Dropout(0.3).train()
    x = torch.ones(200_000)
    y = layer(x)
    kept = y != 0
    assert float(kept.float().mean()) == pytest.approx(0.7, abs=0.005)
    assert torch.allclose(y[kept], torch.full_like(y[kept], 1 / 0.7))


def test_gradient_flows_through_kept_elements_only():
    torch.manual_seed(1)
    x = torch.randn(1000, requires_grad=True)
    y = Dropout(0.5).train()(x)
    y.sum().backward()
    assert torch.equal(x.grad != 0, y != 0)


def test_eval_and_zero_rate_are_the_identity_and_nothing_is_saved():
    x = torch.randn(10)
    assert Dropout(0.4).eval()(x) is x
    assert Dropout(0.0).train()(x) is x
    assert Dropout(0.4).state_dict() == {}


def test_rate_checked():
    with pytest.raises(ValueError, match="E112"):
        Dropout(1.0)


def test_a_saved_model_s_fingerprint_is_as_with_torch_s_dropout():
    """Pipelines saved before `Dropout` existed (with `torch.nn.Dropout`) still load:
    the model fingerprint that loading checks is the same with either."""
    import spacy

    from spacy_gdcws.ml.shims import torch_shims
    from spacy_gdcws.ml.fingerprint import model_fingerprint
    from tests.util import model_config

    nlp = spacy.blank("zh")
    seg = nlp.add_pipe("gdcws_segmenter", config={"model": model_config("idcnn", "crf", dropout=0.3)})
    ours = model_fingerprint(seg.model)
    net = torch_shims(seg.model)[0].net
    for name, module in list(net.named_modules()):
        for child_name, child in list(module.named_children()):
            if isinstance(child, Dropout):
                setattr(module, child_name, torch.nn.Dropout(child.p))
    assert not any(isinstance(m, Dropout) for m in net.modules())
    assert model_fingerprint(seg.model) == ours
