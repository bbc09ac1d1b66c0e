"""Entry point of the ``irrun`` command: a click group whose subcommands live in their
own modules and import the library only when they run (``irrun --help`` stays fast)."""

from __future__ import annotations

import click
from irrun.cli.compare_cmd import compare_command
from irrun.cli.execute_cmd import execute_command
from irrun.cli.graph_cmd import graph_command
from irrun.cli.inspect_cmd import inspect_command
from irrun.cli.validate_cmd import validate_command

EPILOG = """\b
Exit codes:
  0  success (no errors)
  1  the model has problems (validation errors, execution failed)
  2  unusable input or usage: unreadable file, malformed XML, bad option
  3  internal error in irrun (a bug: please report it)
"""


@click.group(
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=EPILOG,
)
@click.version_option(package_name="irrun", prog_name="irrun")
def main():
    """Read, check and run OpenVINO IR (.xml + .bin) without the OpenVINO runtime.

    MODEL.xml may be a full IR file (<net>, version 10 or 11) or a fragment
    of bare <layer> elements as in the OpenVINO op specification.
    """


main.add_command(inspect_command)
main.add_command(validate_command)
main.add_command(execute_command)
main.add_command(compare_command)
main.add_command(graph_command)
