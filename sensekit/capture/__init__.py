"""Sources: camera, microphone, media file and recording replay, all interchangeable."""
from sensekit.capture.base import AudioBlock, Item, Source, VideoFrame, merge_by_time

__all__ = ["AudioBlock", "Item", "Source", "VideoFrame", "merge_by_time"]
