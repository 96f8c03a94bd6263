"""A photo as the page shows it: shrunk once to what Streamlit sends a phone, boxes drawn, JPEG.

Handed a phone's 12 MP photo, `st.image` encodes it whole, opens it again, shrinks it to its
largest width by a bilinear resample and encodes it again, on every run of the page, every tap
included: most of a tap's run (`python -m training.page_bench`, docs/benchmarks.md). So the page shrinks the
photo once (`vision.photo.resized`: by area), draws on that, and hands over the JPEG as it is sent.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.draw import draw_boxes
from vision.photo import resized

SHOWN_WIDTH = 1460  # px: Streamlit sends no image wider (its MAXIMUM_CONTENT_WIDTH, twice the 730 px column)
QUALITY = 90  # what Streamlit encodes a shrunk image at


@dataclass(frozen=True)
class Picture:
    image: np.ndarray  # BGR, at most SHOWN_WIDTH wide
    scale: float  # its pixels per pixel of the photo

    @classmethod
    def of(cls, photo: np.ndarray) -> Picture:
        width = photo.shape[1]
        if width <= SHOWN_WIDTH:
            return cls(photo, 1.0)
        scale = SHOWN_WIDTH / width
        size = (SHOWN_WIDTH, max(1, round(photo.shape[0] * scale)))
        return cls(resized(photo, size), scale)

    def drawn(self, boxes: np.ndarray, labels: list[str], highlight: list[bool] | None = None,
              dimmed: list[bool] | None = None) -> np.ndarray:
        """The picture with these boxes (xyxy, the photo's pixels) and labels (`vision.draw.draw_boxes`)."""
        return draw_boxes(self.image, np.asarray(boxes, np.float32).reshape(-1, 4) * self.scale, labels,
                          highlight, dimmed)


def jpeg(image: np.ndarray) -> bytes:
    """A BGR image as the JPEG the page sends (`st.image` passes it on as it is)."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
    if not ok:
        raise ValueError(f"cannot encode an image of shape {image.shape} as JPEG")
    return data.tobytes()
