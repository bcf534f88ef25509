package main

import str "strings"

func main() {}
