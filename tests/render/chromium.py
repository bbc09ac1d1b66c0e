"""A small driver of headless Chromium through its DevTools protocol, in the standard library.

Chromium started with ``--remote-debugging-pipe`` reads protocol messages (JSON, each ended by
a NUL byte) on file descriptor 3 and writes its answers and events on 4: no port, no
websocket, no extra package. :class:`Browser` opens one page and offers what the tests need:
load a file, evaluate JavaScript, click and type like a user (input events, so the page's own
handlers run), and take a screenshot.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

__all__ = ["Browser", "chromium_path"]


def chromium_path() -> str | None:
    """The headless Chromium on PATH (Debian's ``chromium-headless-shell`` or ``chromium``)."""
    return shutil.which("chromium-headless-shell") or shutil.which("chromium")


class BrowserError(RuntimeError):
    """The browser answered a command with an error, or a script threw."""


class Browser:
    """One headless Chromium with one page of ``width`` x ``height`` CSS pixels."""

    def __init__(self, width: int = 1400, height: int = 900, timeout: float = 30.0):
        self.timeout = timeout
        self._profile = tempfile.mkdtemp(prefix="irrun-chromium-")
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()

        def in_child():
            # The browser finds its pipes on fds 3 and 4. Copy both above 9 first so that
            # neither dup2 overwrites the other; the copies and originals close on exec.
            readable = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD_CLOEXEC, 10)
            writable = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD_CLOEXEC, 10)
            os.dup2(readable, 3)
            os.dup2(writable, 4)

        self._process = subprocess.Popen(
            [chromium_path(), "--headless", "--remote-debugging-pipe", "--no-sandbox",
             "--disable-gpu", "--no-first-run", "--hide-scrollbars", "--mute-audio",
             f"--user-data-dir={self._profile}", f"--window-size={width},{height}",
             "about:blank"],
            close_fds=False,  # Python's own descriptors are not inheritable; 3 and 4 are
            preexec_fn=in_child,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict] = []
        target = self.command("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.command("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        self.command("Page.enable")
        self.command("Runtime.enable")
        self.command("Emulation.setDeviceMetricsOverride", width=width, height=height,
                     deviceScaleFactor=1, mobile=False)  # fmt: skip

    # -- protocol -----------------------------------------------------------------------------
    def _send(self, message: dict) -> None:
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._to_browser, data) :]

    def _receive(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed its pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def command(self, method: str, **params):
        """Send one protocol command (to the page once attached) and return its result."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if getattr(self, "_session", None):
            message["sessionId"] = self._session
        self._send(message)
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._receive(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            if "method" in answer:
                self._events.append(answer)

    def wait_for_event(self, method: str) -> dict:
        """Wait until the page sends event ``method`` (events seen already count)."""
        deadline = time.monotonic() + self.timeout
        while True:
            for index, event in enumerate(self._events):
                if event["method"] == method:
                    return self._events.pop(index)
            answer = self._receive(deadline)
            if "method" in answer:
                self._events.append(answer)

    # -- what a test does ---------------------------------------------------------------------
    def open(self, path) -> float:
        """Load a local file (``page.html#fragment`` too) and wait until the page says it is
        ready; return the seconds."""
        start = time.monotonic()
        # From a blank page: the same file with another #fragment would not load anew.
        self.command("Page.navigate", url="about:blank")
        self._events.clear()
        self.command("Page.navigate", url=f"file://{os.path.abspath(path)}")
        self.wait_for_event("Page.loadEventFired")
        deadline = time.monotonic() + self.timeout
        while not self.evaluate("document.body && document.body.dataset.ready === 'true'"):
            if time.monotonic() > deadline:
                raise TimeoutError("the page never became ready")
            time.sleep(0.05)
        return time.monotonic() - start

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (awaited if it is a promise)."""
        result = self.command("Runtime.evaluate", expression=expression, returnByValue=True,
                              awaitPromise=True)  # fmt: skip
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def center_of(self, selector: str) -> tuple[float, float]:
        """The centre of the first element ``selector`` matches, in page pixels."""
        box = self.evaluate(
            f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
            ".getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        return box[0], box[1]

    def click(self, x: float, y: float) -> None:
        """A left mouse click at ``(x, y)``, as the mouse sends it."""
        self.command("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        for kind in ("mousePressed", "mouseReleased"):
            self.command("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left",
                         buttons=1 if kind == "mousePressed" else 0, clickCount=1)  # fmt: skip

    def drag(self, start: tuple[float, float], end: tuple[float, float], steps: int = 5) -> None:
        """Press the left button at ``start``, move to ``end`` and release there."""
        self.command("Input.dispatchMouseEvent", type="mousePressed", x=start[0], y=start[1],
                     button="left", buttons=1, clickCount=1)  # fmt: skip
        for step in range(1, steps + 1):
            x = start[0] + (end[0] - start[0]) * step / steps
            y = start[1] + (end[1] - start[1]) * step / steps
            self.command("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y, button="left",
                         buttons=1)  # fmt: skip
        self.command("Input.dispatchMouseEvent", type="mouseReleased", x=end[0], y=end[1],
                     button="left", buttons=0, clickCount=1)  # fmt: skip

    def wheel(self, x: float, y: float, delta_y: float) -> None:
        """Turn the mouse wheel over ``(x, y)``."""
        self.command("Input.dispatchMouseEvent", type="mouseWheel", x=x, y=y, deltaX=0,
                     deltaY=delta_y)  # fmt: skip

    def type_text(self, text: str) -> None:
        """Type ``text`` into the focused element, as a keyboard would."""
        self.command("Input.insertText", text=text)

    def press(self, key: str, code: str, key_code: int) -> None:
        """Press and release one key (``"Enter"``, ``"Enter"``, 13)."""
        for kind in ("keyDown", "keyUp"):
            self.command("Input.dispatchKeyEvent", type=kind, key=key, code=code,
                         windowsVirtualKeyCode=key_code)  # fmt: skip

    def screenshot(self, path) -> bytes:
        """Save a PNG of the page as shown, and return its bytes."""
        data = base64.b64decode(self.command("Page.captureScreenshot", format="png")["data"])
        with open(path, "wb") as file:
            file.write(data)
        return data

    def close(self) -> None:
        """Stop the browser and remove its profile."""
        try:
            self._session = None
            self._send({"id": self._next_id + 1, "method": "Browser.close", "params": {}})
            self._process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait()
        finally:
            for fd in (self._to_browser, self._from_browser):
                with contextlib.suppress(OSError):
                    os.close(fd)
            shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
