"""gong as an installed agent for Harbor (and so for Terminal-Bench): `-a gong_harbor:Gong`."""

from gong_harbor.agent import Gong

__all__ = ["Gong"]
