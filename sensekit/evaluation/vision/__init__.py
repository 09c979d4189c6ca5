"""Vision evaluation: trackers started by a click, CDnet motion masks, blobs with ids, and
poses against COCO keypoints."""
