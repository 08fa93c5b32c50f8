"""The manifest of a golden-reference folder (References/manifest.txt): which program drew
each reference PNG. Tests/TestSupport/ReferenceManifest.swift reads it; the test comparator
lets LAMINA_REGENERATE_REFERENCES=1 rewrite only the references whose maker is `lamina`
(Lamina's own output). The independent renderers (scripts/gen-references,
scripts/scene-cairo, scripts/lottie-rlottie) record their own rows here each time they write a reference.
"""
import os

NAME = "manifest.txt"
HEADER = """\
# Who drew each reference PNG in this folder: one line per file, "NAME.png MAKER".
# MAKER scripts/gen-references or scripts/scene-cairo: an independent renderer (cairo), or
#   scripts/lottie-rlottie (rlottie). Only that script writes the file and its line; rerun it
#   to refresh them.
# MAKER lamina: Lamina's own output, looked at by a person before it was committed.
#   LAMINA_REGENERATE_REFERENCES=1 rewrites these files and refuses every other one.
"""


def record(directory, maker, names):
    """Sets the maker of each of `names` (file names without .png) in `directory`'s manifest,
    keeping every other line; writes the lines sorted by file name."""
    path = os.path.join(directory, NAME)
    rows = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                fields = line.split()
                if len(fields) == 2 and not line.startswith("#"):
                    rows[fields[0]] = fields[1]
    for name in names:
        rows[name + ".png"] = maker
    with open(path, "w") as f:
        f.write(HEADER)
        for file in sorted(rows):
            f.write("%s %s\n" % (file, rows[file]))
    print("recorded %d reference(s) by %s in %s" % (len(names), maker, path))
