"""People: who may use the bot, which person a platform identity is, their settings,
linking their accounts, and how fast they may send."""
