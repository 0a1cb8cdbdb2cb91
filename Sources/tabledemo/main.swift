import TableUI
print("tabledemo")
