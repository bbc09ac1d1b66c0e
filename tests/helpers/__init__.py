"""Helpers shared by the test folders, imported as ``from tests.helpers.cli import invoke``
(pytest puts the repository root on ``sys.path``; see ``pythonpath`` in pyproject.toml).

- :mod:`tests.helpers.cli`: run the ``irrun`` command in-process or in a fresh interpreter.
- :mod:`tests.helpers.ir_text`: write IR XML text, find lines in it, edit it.
- :mod:`tests.helpers.openvino_oracle`: OpenVINO as the oracle for op tests.
- :mod:`tests.helpers.strategies`: hypothesis strategies for partial shapes, and small helpers
  the op tests share (a bare op, a validated net, one diagnostic of a report).
- :mod:`tests.helpers.conv_strategies`: the drawn cases of the convolution family's tests.
- :mod:`tests.helpers.recurrent`: builders and checks of the LSTM/GRU/RNN cell and sequence
  tests.
- :mod:`tests.helpers.threads`: counting the threads a load leaves behind.
"""
