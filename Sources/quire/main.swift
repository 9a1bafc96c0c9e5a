print("quire")
