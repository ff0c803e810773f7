"""Lets the tests import problems.py and peers.py, whatever pytest's import mode, and
srcdiff from this working tree."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
