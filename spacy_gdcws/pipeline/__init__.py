"""The `gdcws_segmenter` pipeline component and its factory."""
