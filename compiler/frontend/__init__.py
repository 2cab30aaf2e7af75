"""Frontend: captures a torch.nn.Module with torch.export and imports it into the Torch dialect."""
