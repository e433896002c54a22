"""validate/record_lines.py: the one-record-per-line layout on a hand-written document, its round trip, and
every committed JSON run document already in it;
record_lines_test.cpp checks that the C++ writer gives the same text (validate/results/README.md, "Files").

    test_record_lines.py SOURCE_DIR
"""
import glob
import json
import os
import sys
import unittest

SOURCE_DIR = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "validate"))
from record_lines import in_layout, read_text, record_lines, same_document  # noqa: E402

# The committed run documents (not model/devices/ profiles, not fuzz/corpus/).
RUN_DOCUMENTS = ("validate/results/**/*.json", "lab/calibration/results/**/*.json", "lab/heldout/results/**/*.json",
                 "lab/heldout/results/**/*.json.gz")

HERE = os.path.dirname(os.path.abspath(__file__))


def read(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read()


# A hand-written document and its layout, the same files tests/formats/record_lines_test.cpp reads.
DOCUMENT = json.loads(read("record_lines_input.json"))
EXPECTED = read("record_lines_expected.json")


class RecordLines(unittest.TestCase):
    def test_layout_of_a_hand_written_document(self):
        self.assertEqual(record_lines(DOCUMENT), EXPECTED)

    def test_round_trip_keeps_order_types_and_floats(self):
        back = json.loads(record_lines(DOCUMENT))
        self.assertTrue(same_document(back, DOCUMENT))
        self.assertEqual(list(back), list(DOCUMENT))
        self.assertIsInstance(back["context"]["settings"]["l2_multiple"], float)
        floats = [0.1, 1 / 3, 1e-300, 123456789.123456789, 2.0 ** 60, -0.0]
        self.assertEqual([repr(x) for x in json.loads(record_lines({"runs": [{"x": floats}]}))["runs"][0]["x"]],
                         [repr(x) for x in floats])

    def test_in_layout_ignores_how_a_float_is_spelt(self):
        self.assertTrue(in_layout('{\n "runs":[\n  {"max":56.095998734235764}\n ]\n}\n'))
        self.assertFalse(in_layout('{"runs":[{"max":56.095998734235764}]}\n'))

    def test_top_level_array_and_scalars(self):
        self.assertEqual(record_lines([{"a": 1}, {"a": 2}]), '[\n {"a":1},\n {"a":2}\n]\n')
        self.assertEqual(record_lines([1, 2]), "[1,2]\n")
        self.assertEqual(record_lines({"a": 1}), '{\n "a":1\n}\n')

    def test_committed_run_documents_are_one_record_per_line(self):
        paths = sorted({p for pattern in RUN_DOCUMENTS
                        for p in glob.glob(os.path.join(SOURCE_DIR, pattern), recursive=True)})
        self.assertGreater(len(paths), 50)
        for path in paths:
            text = read_text(path)
            with self.subTest(path=os.path.relpath(path, SOURCE_DIR)):
                # in_layout: memsim-validate's floats may be spelt otherwise than repr spells them
                self.assertTrue(in_layout(text),
                                "not one record per line: python3 validate/record_lines.py FILE rewrites it")


if __name__ == "__main__":
    unittest.main()
