"""What a button press does: approve or reject a held change, file an inbox note,
undo a change, act on a digest item or a reminder."""
