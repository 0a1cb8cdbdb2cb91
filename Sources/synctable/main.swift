print("synctable")
