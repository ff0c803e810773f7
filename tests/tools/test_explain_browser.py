"""srcdiff.explain: the walk-through page, checked as a file and driven in headless Chromium.

The browser test needs Selenium (pip `selenium`) and Debian's `chromium` and
`chromium-driver` packages; without them it is skipped.  The page-as-a-file tests always run.
"""

import json
import re
import shutil

import pytest
from browser import chromium
from modules import import_source

import srcdiff

MODEL = """\
def f(a, b, c):
    return (a + b) * (a + c)
"""
ARGS = (2.0, 3.0, 5.0)
ENGINES = ["layered"] + (["dot"] if shutil.which("dot") else [])


@pytest.fixture(scope="module")
def f(tmp_path_factory):
    return import_source(tmp_path_factory.mktemp("explain"), MODEL, module_name="explain_model").f


def page_data(text: str) -> dict:
    found = re.search(r'<script id="walk-data" type="application/json">(.*?)</script>', text, re.S)
    return json.loads(found.group(1))


@pytest.mark.parametrize("engine", ENGINES)
def test_page_is_one_self_contained_file(f, tmp_path, engine):
    path = srcdiff.explain(f, *ARGS, html=tmp_path / "walk.html", engine=engine)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "{{" not in text
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=\"(https?:)?//", text)
    assert "@import" not in text and "url(http" not in text
    assert re.findall(r"https?://[^\s\"']+", text) == ["http://www.w3.org/2000/svg"]  # the SVG namespace only
    assert page_data(text)["engine"] == engine
    for name in ("a", "b", "c", "t1", "t2", "f"):
        assert f'id="node-{name}"' in text


def test_steps_play_forward_then_backward(f):
    data = page_data(srcdiff.explain(f, *ARGS))
    forward = [s["node"] for s in data["steps"] if s["phase"] == "forward"]
    backward = [s["node"] for s in data["steps"] if s["phase"] == "backward"]
    assert forward == ["a", "b", "c", "t1", "t2", "f"]
    assert backward == ["f", "t2", "t1", "c", "b", "a"]
    phases = [s["phase"] for s in data["steps"]]
    assert phases == sorted(phases, key=["forward", "backward"].index)
    last = data["steps"][-1]
    assert last["adjoint"] == "12"  # (a + c) + (a + b) at a=2, b=3, c=5
    assert [t["from"] for t in last["terms"]] == ["t2", "t1"]
    assert "sum 5 + 7 = 12" in last["what"]
    assert data["steps"][3]["what"] == "2 + 3 = 5"


@pytest.mark.parametrize("engine", ENGINES)
def test_browser_walks_the_backward_pass_to_the_gradient(f, tmp_path, engine, monkeypatch):
    monkeypatch.setenv("SE_OFFLINE", "true")  # never let Selenium fetch drivers
    path = srcdiff.explain(f, *ARGS, html=tmp_path / "walk.html", engine=engine)
    driver = chromium()
    from selenium.webdriver.common.by import By

    try:
        driver.get(path.resolve().as_uri())
        body = driver.find_element(By.TAG_NAME, "body")
        assert body.get_attribute("data-phase") == "ready"

        for _ in range(6):  # the forward pass: every node lights up with its value
            driver.find_element(By.ID, "next").click()
        assert body.get_attribute("data-phase") == "forward"
        assert driver.find_element(By.CSS_SELECTOR, "#node-f .t-val").text == "= 35"

        driver.find_element(By.ID, "to-backward").click()
        assert body.get_attribute("data-phase") == "backward"
        cell = driver.find_element(By.CSS_SELECTOR, '[data-adjoint-for="a"]')
        assert cell.text == "–"  # a is reached last
        steps = 0
        while driver.find_element(By.ID, "next").is_enabled() and steps < 50:
            driver.find_element(By.ID, "next").click()
            steps += 1
        assert body.get_attribute("data-phase") == "backward"
        shown = float(cell.text)
        a, b, c = ARGS
        assert shown == pytest.approx(2 * a + b + c, rel=1e-6)  # d/da (a + b)(a + c), by hand: 12
        assert driver.find_element(By.CSS_SELECTOR, "#node-a .t-adj").text == f"a_bar = {cell.text}"
        explained = driver.find_element(By.ID, "step-terms").text
        assert "from t2: a_bar = " in explained and "from t1: a_bar = " in explained

        screenshot = tmp_path / f"walk-{engine}.png"
        assert driver.save_screenshot(str(screenshot))
        assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

        errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        assert errors == []
    finally:
        driver.quit()


RNN = """\
import numpy as np


def rnn(h, W, xs):
    for t in range(3):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h)
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_browser_walks_a_loops_backward_iterations(tmp_path, engine, monkeypatch):
    import numpy as np

    monkeypatch.setenv("SE_OFFLINE", "true")
    rnn = import_source(tmp_path, RNN, module_name=f"explain_rnn_{engine}").rnn
    args = (np.full(2, 0.1), np.eye(2) * 0.5, np.ones((3, 2)))
    path = srcdiff.explain(rnn, *args, html=tmp_path / "rnn.html", engine=engine)
    driver = chromium()
    from selenium.webdriver.common.by import By

    try:
        driver.get(path.resolve().as_uri())
        body = driver.find_element(By.TAG_NAME, "body")
        assert driver.find_element(By.ID, "region-loop5").is_displayed()
        driver.find_element(By.ID, "to-backward").click()
        assert body.get_attribute("data-phase") == "backward"
        assert body.get_attribute("data-stack") == "3"  # every iteration saved its values
        stacks, heads = [], []
        while driver.find_element(By.ID, "next").is_enabled() and len(heads) < 200:
            driver.find_element(By.ID, "next").click()
            stacks.append(int(body.get_attribute("data-stack")))
            heads.append(driver.find_element(By.ID, "step-head").text)
        assert [h for h in heads if h.startswith("pop")] == ["pop h_1"] * 3  # h_2 is the next h_1
        assert stacks == sorted(stacks, reverse=True) and stacks[-1] == 0  # it empties, one pop at a time
        w_bar = srcdiff.grad(rnn, wrt=1)(*args)
        shown = driver.find_element(By.CSS_SELECTOR, '[data-adjoint-for="W"]').text
        assert shown == "[" + ", ".join(f"{v:.6g}" for v in w_bar.ravel()) + "]"
        driver.find_element(By.ID, "prev").click()  # and back again
        assert body.get_attribute("data-phase") == "backward"

        screenshot = tmp_path / f"rnn-{engine}.png"
        assert driver.save_screenshot(str(screenshot))
        assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        assert errors == []
    finally:
        driver.quit()
