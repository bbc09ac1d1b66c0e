"""Reading OpenVINO IR files: XML parsing, the ``.bin`` weights, names and the model graph.

This layer knows the file format and nothing of op semantics.
"""

from irrun.ir.reader import load, load_all

__all__ = ["load", "load_all"]
