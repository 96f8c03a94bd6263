"""Photometric effects of a phone photo, with albumentations: lighting gradients,
white balance, shadows, blur, noise, compression. None of them move pixels, so boxes hold.

albumentations' colour transforms assume RGB, so the BGR scene is flipped around them (on BGR a
warm tungsten cast comes out cyan)."""

import albumentations as A
import numpy as np


def photo_effects() -> A.Compose:
    return A.Compose(
        [
            A.Illumination(mode="linear", intensity_range=(0.05, 0.2), p=0.5),
            A.Illumination(mode="gaussian", effect_type="brighten", intensity_range=(0.1, 0.2),
                           sigma_range=(0.2, 0.4), p=0.2),  # a lamp overhead
            # The cast a phone's auto white balance leaves: mild, warm or cool (3000-15000 K by default
            # is an uncorrected lamp, far stronger than what phones save).
            A.PlanckianJitter(temperature_limit=(5000, 8000), p=0.4),
            A.RandomBrightnessContrast(brightness_limit=0.25, contrast_limit=0.25, p=0.7),
            A.ColorJitter(brightness=0, contrast=0, saturation=(0.7, 1.3), hue=(-0.03, 0.03),
                          p=0.4),
            # The photographer's own shadow: soft-edged (RandomShadow's sharp polygons look pasted on).
            A.Illumination(mode="gaussian", effect_type="darken", intensity_range=(0.1, 0.2),
                           sigma_range=(0.25, 0.5), p=0.12),
            A.OneOf(
                [
                    A.GaussianBlur(blur_limit=(3, 5), p=1),
                    A.MotionBlur(blur_limit=(3, 7), p=1),
                    A.Defocus(radius=(1, 3), alias_blur=(0.1, 0.3), p=1),
                ],
                p=0.35,
            ),
            A.OneOf([A.GaussNoise(std_range=(0.01, 0.05), p=1), A.ISONoise(p=1)], p=0.45),
            A.ImageCompression(quality_range=(35, 85), p=0.25),
        ]
    )


def apply_photo(compose: A.Compose, image: np.ndarray, seed: int) -> np.ndarray:
    """Run the effects with a per-image seed so output does not depend on worker order."""
    compose.set_random_seed(seed)
    rgb = compose(image=np.ascontiguousarray(image[:, :, ::-1]))["image"]
    return np.ascontiguousarray(rgb[:, :, ::-1])
