"""A table's memory of its own set (vision/memory.py): taught from a labelled photo, kept bounded, stored
as bytes and refused when corrupt or foreign; a photo read with it; and `python -m vision remember` /
`read --memory` as a player's script would run them."""

import base64
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import MAX_MEMORY_BYTES
from scoring.tiles import FLOWERS
from vision.boxes import match
from vision.classes import CLASSES
from vision.detector import TileDetector
from vision.labels import read_labels
from vision.memory import MAX_BYTES, PER_CLASS, TableMemory, TableMemoryError, embed, load_memory, moved, steadied, unit
from vision.photo import load_photo
from vision.read import read_photo
from vision.settings import READER_DEFAULT

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "tests" / "data" / "samples"
# An unseen-style sample whose five flowers the model alone reads as four, wrong (8f 2f 7f 4f).
FLOWERED = SAMPLES / "unseen-style-000005"


@pytest.fixture(scope="module")
def detector():
    return TileDetector()


def labelled(stem: Path):
    image = load_photo(stem.with_suffix(".jpg"))
    boxes, codes = read_labels(stem.with_suffix(".txt"), image.shape[1], image.shape[0])
    return image, boxes, codes


@pytest.fixture(scope="module")
def taught(detector):
    memory = TableMemory.for_classifier(detector.classifier)
    memory.teach(detector.classifier, *labelled(FLOWERED))
    return memory


def test_a_memory_round_trips_through_bytes(detector, taught):
    again = TableMemory.from_bytes(taught.to_bytes())
    assert again.classifier == taught.classifier == detector.classifier.sha256
    assert again.counts() == taught.counts() and len(again) == len(taught) == 22
    for code, vectors in taught.examples.items():
        np.testing.assert_allclose(again.examples[code], vectors, atol=2e-3)  # stored as float16
    probs = np.random.default_rng(0).dirichlet(np.ones(len(CLASSES)), 5).astype(np.float32)
    embeddings = np.concatenate(list(taught.examples.values()))[:5]
    np.testing.assert_allclose(again.blend(probs, embeddings), taught.blend(probs, embeddings), atol=0.02)
    empty = TableMemory(taught.classifier)  # no examples: no width (dim 0)
    assert TableMemory.from_bytes(empty.to_bytes()) == empty


def corrupted(data: bytes) -> dict[str, bytes]:
    card = json.loads(data)
    code = next(iter(card["examples"]))
    return {
        "truncated": data[: len(data) // 2],
        "not JSON": b"\x89PNG\r\n\x1a\n" + data[:40],
        "another format": json.dumps({**card, "format": "something-else"}).encode(),
        "a list": b"[1, 2, 3]",
        "another version": json.dumps({**card, "version": 99}).encode(),
        "bad base64": json.dumps({**card, "examples": {code: "%%%not base64%%%"}}).encode(),
        "wrong length": json.dumps({**card, "examples": {code: base64.b64encode(b"abc").decode()}}).encode(),
        "not a class": json.dumps({**card, "examples": {"9z": card["examples"][code]}}).encode(),
        "no classifier": json.dumps({k: v for k, v in card.items() if k != "classifier"}).encode(),
        "not finite": json.dumps({**card, "examples": {code: base64.b64encode(
            np.full(card["dim"], np.inf, np.float16).tobytes()).decode()}}).encode(),
        # a header that does not fit the examples: a bank of 10^9 examples a class (15 TiB), rows cut in halves
        "a billion a class": json.dumps({**card, "per_class": 1_000_000_000}).encode(),
        "half the width": json.dumps({**card, "dim": card["dim"] // 2}).encode(),
        "more than it keeps": json.dumps({**card, "examples": {code: base64.b64encode(
            np.eye(card["per_class"] + 1, card["dim"], dtype=np.float16).tobytes()).decode()}}).encode(),
        "too big": data + b" " * MAX_BYTES,
    }


# Each way a memory's bytes can go wrong, and the notice that refuses it.
REFUSED_AS = {"truncated": "memory-not-memory", "not JSON": "memory-not-memory", "a list": "memory-not-memory",
              "another format": "memory-not-memory", "another version": "memory-version",
              "bad base64": "memory-corrupt", "wrong length": "memory-corrupt", "not a class": "memory-corrupt",
              "no classifier": "memory-corrupt", "not finite": "memory-corrupt", "a billion a class": "memory-corrupt",
              "half the width": "memory-corrupt", "more than it keeps": "memory-corrupt",
              "too big": "memory-too-big"}


@pytest.mark.parametrize("damage", sorted(REFUSED_AS))
def test_a_corrupt_or_foreign_memory_is_refused_with_what_is_wrong(taught, damage):
    with pytest.raises(TableMemoryError) as refused:
        TableMemory.from_bytes(corrupted(taught.to_bytes())[damage], "table.json")
    assert refused.value.notice.code == REFUSED_AS[damage]
    assert "table.json" in str(refused.value)


def test_a_memory_is_bounded_as_the_ledger_stores_it():
    assert MAX_BYTES == MAX_MEMORY_BYTES


def test_a_huge_memory_file_is_refused_unread(tmp_path):
    """A 1 GB file was read and decoded whole (2.2 GB at peak) before it was refused: under an address
    space of what the process has plus 300 MB, it is refused by its size."""
    huge = tmp_path / "table.json"
    with huge.open("wb") as fh:
        fh.truncate(1 << 30)  # sparse: no disk spent
    script = (
        "import re, resource, sys\n"
        "from pathlib import Path\n"
        "from vision.memory import TableMemoryError, load_memory\n"
        "now = int(re.search(r'VmSize:\\s+(\\d+) kB', open('/proc/self/status').read())[1]) * 1024\n"
        "resource.setrlimit(resource.RLIMIT_AS, (now + (300 << 20),) * 2)\n"
        "try:\n"
        "    load_memory(Path(sys.argv[1]), None)\n"
        "except TableMemoryError as exc:\n"
        "    print(exc.notice.code)\n")
    assert run_limited(script, huge) == "memory-too-big\n"


def run_limited(script: str, path: Path) -> str:
    """What `script` prints, run on `path` in a fresh process (whose limits it sets itself, not ours)."""
    out = subprocess.run([sys.executable, "-c", script, str(path)], cwd=REPO, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_a_memory_that_cannot_be_written_leaves_the_old_one_and_nothing_beside_it(tmp_path):
    """On a full disk (here: files limited to 4 KB, RLIMIT_FSIZE) the write fails; a `.partial` was left."""
    path = tmp_path / "table.json"
    path.write_bytes(b"the memory as it was")
    script = (
        "import resource, signal, sys\n"
        "import numpy as np\n"
        "from pathlib import Path\n"
        "from vision.memory import TableMemory, save_memory\n"
        "memory = TableMemory('0' * 64, per_class=20)\n"
        "memory.add(np.eye(20, 192, dtype=np.float32), ['1f'] * 20)  # 10 KB\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG), as on a full disk\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
        "try:\n"
        "    save_memory(memory, Path(sys.argv[1]))\n"
        "except OSError as exc:\n"
        "    print(exc.strerror)\n")
    assert run_limited(script, path) == "File too large\n"
    assert [p.name for p in tmp_path.iterdir()] == ["table.json"] and path.read_bytes() == b"the memory as it was"


def test_a_memory_of_another_classifier_is_refused(detector, taught, tmp_path):
    foreign = TableMemory.from_bytes(taught.to_bytes())
    foreign.classifier = "f" * 64
    path = tmp_path / "table.json"
    path.write_bytes(foreign.to_bytes())
    with pytest.raises(TableMemoryError, match="another|made with") as refused:
        load_memory(path, detector.classifier)
    assert refused.value.notice.code == "memory-other-classifier"
    with pytest.raises(TableMemoryError):
        read_photo(load_photo(FLOWERED.with_suffix(".jpg")), detector, memory=foreign)


def test_the_memory_keeps_the_newest_examples_of_each_class_and_can_be_reset():
    memory = TableMemory("0" * 64, per_class=3)
    vectors = np.eye(8, dtype=np.float32)
    memory.add(vectors[:5], ["1f"] * 5)
    memory.add(vectors[5:], ["2f", "1f", "2f"])
    assert memory.counts() == {"1f": 3, "2f": 2}
    np.testing.assert_array_equal(memory.examples["1f"], vectors[[3, 4, 6]])
    memory.reset()
    assert len(memory) == 0 and memory.counts() == {}
    with pytest.raises(ValueError, match="not tile classes"):
        memory.add(vectors[:1], ["9z"])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.sampled_from(CLASSES), min_size=1, max_size=6, unique=True))
def test_a_class_without_examples_is_left_to_the_model(seed, known):
    """Among the classes the memory has no example of, the model's odds stand; an empty memory changes nothing."""
    rng = np.random.default_rng(seed)
    probs = rng.dirichlet(np.ones(len(CLASSES)), 4).astype(np.float32)
    embeddings = rng.random((4, 16)).astype(np.float32)
    memory = TableMemory("0" * 64)
    np.testing.assert_array_equal(memory.blend(probs, embeddings), probs)
    memory.add(rng.random((len(known), 16)).astype(np.float32), known)
    blended = memory.blend(probs, embeddings)
    np.testing.assert_allclose(blended.sum(axis=1), 1.0, atol=1e-5)
    unknown = [CLASSES.index(c) for c in CLASSES if c not in known]
    ratio = blended[:, unknown] / probs[:, unknown]
    np.testing.assert_allclose(ratio, ratio[:, :1].repeat(len(unknown), axis=1), rtol=1e-3)


def test_the_memory_weighs_its_examples_as_its_settings_say():
    """A crop just like a class's example moves the odds by default; settings that give likeness no weight
    leave the model's odds as they are."""
    rng = np.random.default_rng(0)
    probs = rng.dirichlet(np.ones(len(CLASSES)), 4).astype(np.float32)
    embeddings = rng.random((4, 16)).astype(np.float32)
    heeded = TableMemory("0" * 64)
    unheeded = TableMemory("0" * 64, settings=replace(READER_DEFAULT, strength=0.0, relative=0.0, probe=0.0))
    for memory in (heeded, unheeded):
        memory.add(embeddings[:2], ["1f", "2f"])
    assert np.abs(heeded.blend(probs, embeddings) - probs).max() > 0.1
    np.testing.assert_allclose(unheeded.blend(probs, embeddings), probs, atol=1e-6)


def test_of_two_classes_whose_examples_are_both_like_a_crop_the_likelier_wins():
    """A set's flowers look alike: a crop of 6f is well above `similar` to the 8f examples too. The class whose
    example is likest the crop wins over a model that prefers the other one three to one, unless no example
    is as like the crop as one of the table's own set (`same_set`): the likest may then be another set's."""
    memory = TableMemory("0" * 64)
    memory.add(np.array([[1.0, 0.0, 0.0], [0.95, 0.312, 0.0]], np.float32), ["6f", "8f"])
    probs = np.full((1, len(CLASSES)), 1e-4, np.float32)
    probs[0, CLASSES.index("6f")], probs[0, CLASSES.index("8f")] = 0.25, 0.75
    probs /= probs.sum()

    def likelier(crop) -> str:
        return CLASSES[int(memory.blend(probs, np.array([crop], np.float32))[0].argmax())]

    assert likelier([1.0, 0.0, 0.0]) == "6f"  # like its 6f at 1.0, its 8f at 0.95
    to_6f = READER_DEFAULT.same_set - 0.01  # and its 8f 0.04 less: both below same_set
    off_axis = (to_6f - 0.04 - 0.95 * to_6f) / 0.312
    assert likelier([to_6f, off_axis, np.sqrt(1 - to_6f**2 - off_axis**2)]) == "8f"


def test_a_crop_of_this_set_goes_to_its_likest_example_over_a_class_the_table_has_not_shown():
    """`xmahjongg-real`'s 冬 read as the bamboo bird (1s at 0.87, 8f at 0.01) before any 1s was taught: a crop as
    like the table's 8f as one of its own set (`same_set`) is read 8f. A crop less like it is left to the model:
    the likest example may then be another set's."""
    memory = TableMemory("0" * 64, settings=replace(READER_DEFAULT, probe=0.0))
    memory.add(np.array([[1.0, 0.0], [0.0, 1.0]], np.float32), ["8f", "6f"])
    probs = np.full((1, len(CLASSES)), 0.12 / (len(CLASSES) - 2), np.float32)
    probs[0, CLASSES.index("1s")], probs[0, CLASSES.index("8f")] = 0.87, 0.01

    def read(similarity: float) -> str:
        crop = np.array([[similarity, np.sqrt(1 - similarity**2)]], np.float32)
        return CLASSES[int(memory.blend(probs, crop)[0].argmax())]

    assert read(0.93) == "8f"
    assert read(0.80) == "1s"


def test_the_probe_tells_apart_a_sets_alike_flowers_that_nearest_examples_do_not():
    """One set's 春 and 秋 differ in a few features of 192 and agree in the rest: a new 春 is as like 秋's examples
    as its own (0.96 against 0.94), and the model prefers 秋 3 to 1. The probe fitted on the table's examples finds the
    features they differ in and reads it 春; without it (`probe` 0) the model's preference stands."""
    rng = np.random.default_rng(7)
    shared = rng.normal(size=192)
    marks = {"5f": np.eye(192)[0] * 2, "7f": np.eye(192)[1] * 2}

    def crops(code: str, n: int) -> np.ndarray:
        return shared + marks[code] + rng.normal(scale=0.2, size=(n, 192))

    memory = TableMemory("0" * 64)
    memory.add(np.concatenate([crops("5f", 4), crops("7f", 4)]), ["5f"] * 4 + ["7f"] * 4)
    new = crops("5f", 20)
    cosine = lambda code: (unit(new) @ memory.examples[code].T).max(axis=1)  # noqa: E731
    assert float(np.mean(cosine("5f") - cosine("7f"))) < 0.03  # 0.96 against 0.94: the nearest examples barely differ
    probs = np.full((len(new), len(CLASSES)), 1e-4, np.float32)
    probs[:, CLASSES.index("5f")], probs[:, CLASSES.index("7f")] = 0.25, 0.75
    probs /= probs.sum(axis=1, keepdims=True)
    read = lambda m: [CLASSES[i] for i in m.blend(probs, new).argmax(axis=1)]  # noqa: E731
    assert read(memory).count("5f") >= 18
    without = TableMemory("0" * 64, settings=replace(READER_DEFAULT, probe=0.0))
    without.examples = memory.examples
    assert read(without).count("5f") <= 5


def test_the_probe_is_fitted_again_when_the_examples_change():
    """A memory taught more reads as a memory given the same examples afresh: the probe it fitted before is
    not reused."""
    rng = np.random.default_rng(3)
    shared = rng.normal(size=32) * 3
    tiles = lambda n: shared + rng.normal(size=(n, 32))  # noqa: E731  one set's tiles: all alike
    crops = tiles(6)
    probs = rng.dirichlet(np.ones(len(CLASSES)), 6).astype(np.float32)
    memory = TableMemory("0" * 64)
    memory.add(tiles(3), ["1f", "2f", "3f"])
    before = memory.blend(probs, crops)
    memory.add(tiles(3), ["3f", "1f", "2f"])  # the same classes: a probe of the same shape
    fresh = TableMemory("0" * 64)
    fresh.examples = {code: v.copy() for code, v in memory.examples.items()}
    np.testing.assert_array_equal(memory.blend(probs, crops), fresh.blend(probs, crops))
    assert np.abs(memory.blend(probs, crops) - before).max() > 0.01


@settings(max_examples=30, deadline=None)
@given(st.integers(-6, 6), st.integers(-6, 6), st.integers(0, 2**32 - 1))
def test_a_moved_crop_shows_the_same_pixels_further_along(dx, dy, seed):
    crops = np.random.default_rng(seed).integers(0, 256, (2, 64, 48, 3), dtype=np.uint8)
    out = moved(crops, dx, dy)
    assert out.shape == crops.shape and out.dtype == np.uint8
    np.testing.assert_array_equal(out[:, max(dy, 0):64 + min(dy, 0), max(dx, 0):48 + min(dx, 0)],
                                  crops[:, max(-dy, 0):64 - max(dy, 0), max(-dx, 0):48 - max(dx, 0)])


def test_a_steadied_flower_moves_less_with_its_box_and_the_other_tiles_keep_their_embeddings(detector):
    """A flower's steadied embedding changes less when its crop moves by a box's error than its crop's own does;
    the crops not asked for are left as they were, and taught tiles other than flowers are not steadied."""
    classifier = detector.classifier
    image, boxes, codes = labelled(FLOWERED)
    crops = classifier.crops(image, boxes)
    plain = classifier.read_crops(crops)[1]
    flowers = np.isin(codes, FLOWERS)
    steady = steadied(classifier, crops, plain, flowers, READER_DEFAULT.flower_view_shift)
    np.testing.assert_array_equal(steady[~flowers], plain[~flowers])
    np.testing.assert_array_equal(embed(classifier, image, boxes, codes)[~flowers], plain[~flowers])
    np.testing.assert_allclose(embed(classifier, image, boxes, codes)[flowers], steady[flowers], rtol=1e-5)

    nudged = moved(crops[flowers], 2, 1)
    nudged_plain = classifier.read_crops(nudged)[1]
    nudged_steady = steadied(classifier, nudged, nudged_plain, np.ones(len(nudged), bool),
                             READER_DEFAULT.flower_view_shift)
    drift = lambda a, b: float(np.mean(1 - np.sum(unit(a) * unit(b), axis=1)))  # noqa: E731
    assert drift(steady[flowers], nudged_steady) < drift(plain[flowers], nudged_plain)
    np.testing.assert_array_equal(steadied(classifier, crops, plain, flowers, 0), plain)


def test_an_empty_memory_reads_crops_as_the_model_does():
    """No examples, nothing to compare: the crops are not run through the classifier again."""
    probs = np.random.default_rng(1).dirichlet(np.ones(len(CLASSES)), 3).astype(np.float32)
    out = TableMemory("0" * 64).blend_crops(None, np.zeros((3, 64, 48, 3), np.uint8), probs, np.ones((3, 16)))
    np.testing.assert_array_equal(out, probs)


def flower_codes(reading) -> list[str]:
    return sorted(reading.best.row(i).code for g in reading.best.groups if g.kind == "flowers" for i in g.members)


def test_a_photo_read_with_its_tables_memory_reads_the_sets_flowers(detector, taught):
    """The model alone misreads this unseen design's flowers; taught the set, the tiles read their labels."""
    image, boxes, codes = labelled(FLOWERED)
    alone, remembered = read_photo(image, detector), read_photo(image, detector, memory=taught)
    truth = sorted(c for c in codes if c.endswith("f"))
    assert flower_codes(alone) != truth and flower_codes(remembered) == truth

    def right(reading):
        pairs = match(boxes, reading.best.boxes)
        return sum(reading.best.shown[p].raw_code == codes[t] for t, p in pairs.items())

    assert right(remembered) >= right(alone) + 4


def vision(*args, cwd: Path):
    return subprocess.run([sys.executable, "-m", "vision", *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=180, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})


def test_remember_then_read_with_the_memory_from_the_command_line(tmp_path):
    memory = tmp_path / "table.json"
    read_alone = vision("read", FLOWERED.with_suffix(".jpg"), "--json", "--memory", memory, cwd=tmp_path)
    assert read_alone.returncode == 0, read_alone.stderr
    assert not memory.exists()  # read only: a missing memory is an empty one
    taught = vision("remember", FLOWERED.with_suffix(".jpg"), "--labels", FLOWERED.with_suffix(".txt"),
                    "--memory", memory, cwd=tmp_path)
    assert taught.returncode == 0, taught.stderr
    assert "22 tiles" in taught.stdout and len(TableMemory.from_bytes(memory.read_bytes())) == 22
    again = vision("remember", FLOWERED.with_suffix(".jpg"), "--labels", FLOWERED.with_suffix(".txt"),
                   "--memory", memory, cwd=tmp_path)
    assert again.returncode == 0 and len(TableMemory.from_bytes(memory.read_bytes())) <= PER_CLASS * len(CLASSES)
    before = memory.read_bytes()
    read = vision("read", FLOWERED.with_suffix(".jpg"), "--json", "--memory", memory, cwd=tmp_path)
    assert read.returncode == 0, read.stderr
    flowers = [g["tiles"] for g in json.loads(read.stdout)["groups"] if g["kind"] == "flowers"]
    alone = [g["tiles"] for g in json.loads(read_alone.stdout)["groups"] if g["kind"] == "flowers"]
    assert sorted(flowers[0]) == ["2f", "3f", "4f", "5f", "7f"] != sorted(alone[0])
    assert memory.read_bytes() == before


def test_the_command_line_refuses_what_it_cannot_use_with_its_exit_status(tmp_path):
    photo, labels = FLOWERED.with_suffix(".jpg"), FLOWERED.with_suffix(".txt")
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_bytes(b'{"format": "taishu-table-memory", "version": 1, "exam')
    for command in (["read", photo, "--memory", corrupt], ["remember", photo, "--labels", labels, "--memory", corrupt]):
        out = vision(*command, cwd=tmp_path)
        assert out.returncode == 3 and "not a table memory" in out.stderr and "Traceback" not in out.stderr
    assert corrupt.read_bytes().endswith(b'"exam')  # left as it was
    memory = tmp_path / "table.json"
    outside = tmp_path / "other.txt"
    outside.write_text("0 0.5 0.5 0.1 0.1\n12 1.4 0.5 0.1 0.1\n")  # a second box beyond the photo's right edge
    malformed = tmp_path / "bad.txt"
    malformed.write_text("0 0.5 0.5 0.1\n")
    unknown_class = tmp_path / "class.txt"
    unknown_class.write_text("43 0.5 0.5 0.1 0.1\n")
    empty = tmp_path / "empty.txt"
    empty.write_text("\n")
    not_a_photo = tmp_path / "photo.jpg"
    not_a_photo.write_text("not a photo")
    cases = {(photo, outside): "box 2 lies outside", (photo, malformed): "4 fields",
             (photo, unknown_class): "class 43", (photo, empty): "no tiles", (photo, tmp_path / "none.txt"): "none.txt",
             (not_a_photo, labels): "photo.jpg"}
    for (image, label), said in cases.items():
        out = vision("remember", image, "--labels", label, "--memory", memory, cwd=tmp_path)
        assert out.returncode == 1 and said in out.stderr and "Traceback" not in out.stderr, (label, out.stderr)
    assert not memory.exists()
