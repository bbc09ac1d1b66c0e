"""``python -m irrun``: the same as the ``irrun`` command."""

from irrun.cli.main import main

if __name__ == "__main__":
    main(prog_name="irrun")
