"""The classifier's training augmentation (models/train_classifier.py): `restyle` gives a crop another
set's inks and strokes and nothing else."""

import itertools

import torch
import torch.nn.functional as F

from models.train_classifier import augment, restyle


def crops(n=32, seed=0):
    return torch.rand((n, 3, 64, 48), generator=torch.Generator().manual_seed(seed))


def test_unchosen_crops_are_left_as_they_are():
    x = crops()
    chosen = torch.zeros(len(x), dtype=torch.bool)
    chosen[::2] = True
    out = restyle(x, chosen, torch.Generator().manual_seed(1))
    assert torch.equal(out[1::2], x[1::2])
    assert not torch.equal(out[::2], x[::2])


def test_a_restyled_crop_is_its_own_channels_swapped_then_maybe_bolder_or_finer():
    """Nothing but a permutation of the channels, then perhaps a 3x3 min filter (bolder dark strokes) and
    perhaps a 3x3 max filter (finer ones)."""
    x = crops(64)
    out = restyle(x, torch.ones(len(x), dtype=torch.bool), torch.Generator().manual_seed(2))
    bold = lambda c: -F.max_pool2d(-c[None], 3, 1, 1)[0]  # noqa: E731
    fine = lambda c: F.max_pool2d(c[None], 3, 1, 1)[0]  # noqa: E731
    looks = set()
    for before, after in zip(x, out, strict=True):
        found = [(perm, name) for perm in itertools.permutations(range(3))
                 for name, f in [("plain", lambda c: c), ("bold", bold), ("fine", fine), ("both", lambda c: fine(bold(c)))]
                 if torch.allclose(after, f(before[list(perm)]))]
        assert found, "a restyled crop is not its own channels swapped, bolder or finer"
        looks.add(found[0][1])
    assert looks >= {"plain", "bold"}  # 64 crops see more than one look


def test_augment_with_style_keeps_shape_and_range_and_is_seeded():
    batch = (crops(16) * 255).to(torch.uint8).permute(0, 2, 3, 1).contiguous()
    a = augment(batch, torch.Generator().manual_seed(3), style=0.5)
    b = augment(batch, torch.Generator().manual_seed(3), style=0.5)
    assert a.shape == (16, 3, 64, 48) and torch.equal(a, b)
    assert 0 <= a.min() and a.max() <= 1
