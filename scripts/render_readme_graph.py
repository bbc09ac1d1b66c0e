"""Draw ``examples/ir/tiny.xml`` into ``docs/tiny-graph.svg``, the picture in the README.

Run it from anywhere after changing how :func:`irrun.render.draw.draw` draws::

    python scripts/render_readme_graph.py            # Graphviz when `dot` is installed
    python scripts/render_readme_graph.py --engine matplotlib

The committed picture is made with Graphviz (``apt-get install graphviz``), the
better layout; the script says which engine it used.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import irrun
from irrun.render.draw import ENGINES, choose_engine, draw

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "examples" / "ir" / "tiny.xml"
PICTURE = ROOT / "docs" / "tiny-graph.svg"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=ENGINES, default="auto")
    parser.add_argument("--output", type=Path, default=PICTURE)
    arguments = parser.parse_args()

    model = irrun.load(MODEL)
    report = model.validate()
    arguments.output.parent.mkdir(parents=True, exist_ok=True)
    engine = choose_engine(arguments.engine)
    draw(model, arguments.output, report=report, engine=engine)
    print(f"wrote {arguments.output} with {engine} ({report.summary()})")


if __name__ == "__main__":
    main()
