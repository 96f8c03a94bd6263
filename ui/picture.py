"""A photo as the page shows it: shrunk once to what Streamlit sends a phone, boxes drawn, JPEG.

Handed a phone's 12 MP photo, `st.image` encodes it whole, opens it again, shrinks it to its
largest width by a bilinear resample and encodes it again, on every run of the page, every tap
included: most of a tap's run (`python -m training.page_bench`, docs/benchmarks.md). So the page shrinks the
photo once (`vision.photo.resized`: by area), draws on that, and hands over the JPEG as it is sent. A phone's
JPEG is shrunk from its decoding at 1/2, 1/4 or 1/8 that is still as wide (libjpeg's scaling: the decoding the
read starts from, docs/decisions/page-photo.md), not from all 12 MP.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.draw import draw_boxes
from vision.photo import Photo, resized

SHOWN_WIDTH = 1460  # px: Streamlit sends no image wider (its MAXIMUM_CONTENT_WIDTH, twice the 730 px column)
QUALITY = 90  # what Streamlit encodes a shrunk image at


@dataclass(frozen=True)
class Picture:
    image: np.ndarray  # BGR, at most SHOWN_WIDTH wide
    scale: float  # its pixels per pixel of the photo

    @classmethod
    def of(cls, photo: np.ndarray | Photo) -> Picture:
        """The picture of a BGR photo, or of one `vision.photo.open_photo` opened (decoded as coarsely as it may)."""
        photo = photo if isinstance(photo, Photo) else Photo.of(photo)
        pixels = photo.pixels(photo.covering(width=SHOWN_WIDTH))
        if photo.width <= SHOWN_WIDTH:
            return cls(pixels, 1.0)
        scale = SHOWN_WIDTH / photo.width
        size = (SHOWN_WIDTH, max(1, round(photo.height * scale)))
        return cls(resized(pixels, size), scale)

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
