"""Photo → detections → layout groups → legal-hand correction → scoring `Hand`."""
