"""Shared pieces of the app tests: a real `quire app` process on a temporary library, a real
headless Chromium driven by Selenium, and an HTTP client that sends exactly the headers given."""

import http.client
import json
import os
import random
import shutil
import struct
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
import zlib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
QUIRE = os.environ.get("QUIRE_BIN", os.path.join(ROOT, ".build", "debug", "quire"))


def wait_for(condition, seconds=10, message="condition"):
    """Polls `condition` until it returns something truthy, failing after `seconds`. A page
    element replaced by a live update while the condition looked at it counts as not yet.
    `message` may be a function, called only on failure, for a description read from the page
    then (read before the wait, it can meet elements a live update has already replaced)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            value = condition()
        except Exception as error:  # noqa: BLE001 - only Selenium's "not there (any more)"
            if type(error).__name__ not in ("NoSuchElementException", "StaleElementReferenceException"):
                raise
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            if callable(message):
                try:
                    message = message()
                except Exception as error:  # noqa: BLE001 - the description is best effort
                    message = f"(the description failed: {error})"
            raise AssertionError(f"timed out after {seconds} s waiting for {message}")
        time.sleep(0.05)  # polling interval of a wait with a deadline, not a wait for the event


def texts(driver, css):
    """The visible texts of the elements `css` selects, read in one script: a live update of
    the page cannot replace an element between finding it and reading its text, as it can
    between Selenium's `find_elements` and each element's `.text`."""
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((e) => e.innerText.trim())", css)


def menu_entry(driver, name, action):
    """Opens the context menu of the library item `name` (a right-click, which selects it) and
    returns its entry for `action`, enabled or not; None while the item is not there."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    found = driver.find_elements(By.CSS_SELECTOR, f'#items .item[data-name="{name}"]')
    if not found:
        return None
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", found[0])
    ActionChains(driver).context_click(found[0]).perform()
    entry = driver.find_element(By.CSS_SELECTOR, f'#context-menu button[data-action="{action}"]')
    return entry if entry.is_displayed() else None


def item_action(driver, name, action, seconds=10):
    """Carries out `action` on the library item `name` through its context menu, once the entry
    is there and enabled (a live update may replace the item meanwhile)."""
    def attempt():
        entry = menu_entry(driver, name, action)
        if entry is None or not entry.is_enabled():
            return False
        entry.click()
        return True
    wait_for(attempt, seconds=seconds, message=f"“{action}” in the menu of {name}")


def open_item(driver, name, seconds=10):
    """Opens the library item `name` as a person does: a double-click."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    def attempt():
        found = driver.find_elements(By.CSS_SELECTOR, f'#items .item[data-name="{name}"]')
        if not found:
            return False
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", found[0])
        ActionChains(driver).double_click(found[0]).perform()
        return True
    wait_for(attempt, seconds=seconds, message=f"{name} to open")


class App:
    """`quire app` on a fresh library, with its own XDG folders (and Trash)."""

    def __init__(self, *arguments):
        self.home = tempfile.mkdtemp(prefix="quire-app-test-")
        self.library = os.path.join(self.home, "Library")
        env = dict(
            os.environ,
            XDG_DATA_HOME=os.path.join(self.home, "data"),
            XDG_CACHE_HOME=os.path.join(self.home, "cache"),
            XDG_RUNTIME_DIR=self.home,
            XDG_CONFIG_HOME=os.path.join(self.home, "config"),
            XDG_STATE_HOME=os.path.join(self.home, "state"),
        )
        self.env = env
        self.process = subprocess.Popen(
            [QUIRE, "app", "--library", self.library, "--port", "0", *arguments],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
        self.url = None
        for line in self.process.stdout:
            if line.startswith("Open "):
                self.url = line.split()[1]
                break
        if not self.url:
            raise AssertionError("quire app did not print its address")
        parsed = urllib.parse.urlparse(self.url)
        self.port = parsed.port
        self.token = urllib.parse.parse_qs(parsed.query)["token"][0]
        self.base = f"http://127.0.0.1:{self.port}/"

    def path(self, relative):
        return os.path.join(self.library, relative)

    def request(self, method, path, body=None, headers=None, token=True):
        """One request with exactly these headers (plus the token header unless told not to)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        all_headers = {"Host": f"127.0.0.1:{self.port}"}
        if token:
            all_headers["X-Quire-Token"] = self.token
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            all_headers["Content-Type"] = "application/json"
        if body is not None:
            all_headers["Content-Length"] = str(len(body))
        all_headers.update(headers or {})
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in all_headers.items():
            if value is not None:
                connection.putheader(name, value)
        connection.endheaders(body)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        return response, data

    def api(self, method, path, body=None):
        response, data = self.request(method, path, body)
        if response.status >= 300:
            raise AssertionError(f"{method} {path}: {response.status} {data[:300]!r}")
        return json.loads(data) if data else None

    def names(self, folder=""):
        listing = self.api("GET", "/api/list?" + urllib.parse.urlencode({"folder": folder}))
        return [item["name"] for item in listing["items"]]

    def stop(self):
        self.process.kill()
        self.process.wait()
        self.process.stdout.close()
        shutil.rmtree(self.home, ignore_errors=True)


class SyncServer:
    """`quire server` on a fresh data folder and a free port, with the account alice (and
    more `users`, each with the password NAME-password)."""

    def __init__(self, users=("alice",)):
        self.data = tempfile.mkdtemp(prefix="quire-server-test-")
        for user in users:
            subprocess.run([QUIRE, "server", "add-user", user, "--data", self.data],
                           input=f"{user}-password\n", text=True, check=True, capture_output=True)
        # Its own log, beside the data folder, so a failure can quote what the server said.
        self.log_path = self.data + ".log"
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen([QUIRE, "server", "--data", self.data, "--port", "0"],
                                            stdout=subprocess.PIPE, stderr=log, text=True)
        self.url = None
        for line in self.process.stdout:
            if line.startswith("Quire server listening on "):
                self.url = line.split()[-1]
                break
        if not self.url:
            raise AssertionError("quire server did not print its address")

    def logged(self):
        """The end of what the server wrote on its standard error."""
        try:
            with open(self.log_path, errors="replace") as log:
                return log.read()[-3000:]
        except FileNotFoundError:
            return ""

    def sign_in(self):
        """A device token of alice's."""
        return self.sign_in_as("alice")

    def sign_in_as(self, user):
        """A device token of `user`'s (whose password is USER-password)."""
        request = urllib.request.Request(
            self.url + "/v1/sign-in", method="POST",
            data=json.dumps({"user": user, "password": f"{user}-password", "device": "fuzz"}).encode())
        with urllib.request.urlopen(request) as answer:
            return json.load(answer)["token"]

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.process.stdout.close()
        shutil.rmtree(self.data, ignore_errors=True)
        if os.path.exists(self.log_path):
            os.remove(self.log_path)


def chromium():
    """A headless Chromium (Debian's, with its chromedriver: nothing is downloaded)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--window-size=1280,860", "--disable-gpu"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(options=options, service=service)


def page_state(driver):
    """What a failed wait needs to know of the page: its address, how far it loaded, the message
    it shows, and what its console said (script errors and failed loads included)."""
    try:
        state = driver.execute_script(
            "const m = document.getElementById('message');"
            "return {url: location.href, ready: document.readyState,"
            " message: m && !m.hidden ? m.innerText : null,"
            " scripts: [...document.scripts].map((s) => s.src)}")
    except Exception as error:  # noqa: BLE001 - the description is best effort
        state = f"(the page did not answer: {error})"
    try:
        console = [f"{entry['level']} {entry['message']}" for entry in driver.get_log("browser")]
    except Exception as error:  # noqa: BLE001
        console = [f"(no console: {error})"]
    return f"page {state}; console {console}"


def axe_violations(driver):
    """What axe-core (PyPI's axe-selenium-python) finds to fix in the page as it is now: each
    rule's id with the first three elements it names."""
    from axe_selenium_python import Axe

    axe = Axe(driver)
    axe.inject()
    return [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in axe.run()["violations"]]


def png(width, height, rgb):
    """A small solid-colour PNG."""
    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def noise_png(width, height, seed):
    """A PNG of random pixels, stored uncompressed: about width × height × 3 bytes."""
    generator = random.Random(seed)
    raw = b"".join(b"\x00" + generator.randbytes(width * 3) for _ in range(height))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 0)) + chunk(b"IEND", b""))


class HoldingProxy:
    """A TCP proxy on loopback to `port` that can hold what the server sends back once a number
    of bytes went through (`hold(after=...)`) until `release()`: a download made to wait part
    way, so a page can be seen showing its progress."""

    def __init__(self, port):
        import socket
        import threading
        self.target = port
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.down = 0
        self.limit = None
        self.lock = threading.Lock()
        self.released = threading.Condition(self.lock)
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def hold(self, after):
        with self.lock:
            self.limit = self.down + after

    def release(self):
        with self.lock:
            self.limit = None
            self.released.notify_all()

    def close(self):
        self.closed = True
        self.release()
        self.listener.close()

    def _accept(self):
        import socket
        import threading
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target))
            threading.Thread(target=self._pump, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, True), daemon=True).start()

    def _pump(self, source, target, down):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if down:
                    with self.lock:
                        while self.limit is not None and self.down + len(data) > self.limit:
                            self.released.wait()
                        self.down += len(data)
                target.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, target):
                try:
                    end.shutdown(2)
                except OSError:
                    pass
            source.close()  # each socket is the source of one pump
