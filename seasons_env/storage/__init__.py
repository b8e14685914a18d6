"""Below the batched core: files a user keeps, written all at once (``files``), and game records (``records``)."""
