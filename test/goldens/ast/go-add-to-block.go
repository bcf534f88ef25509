package server

import (
	"fmt"
	str "strings"
	"os"
)

// Server serves requests.
type Server struct {
	name  string
	count int
}

// Handler handles one request.
type Handler interface {
	Handle(path string) error
}

const DefaultName = "srv"

// Run serves until done.
func (s *Server) Run(path string) error {
	upper := str.ToUpper(path)
	for i := range s.name {
		fmt.Println(i, upper)
	}
	s.count++
	return nil
}

func New(name string) *Server {
	srv := &Server{name: name}
	if name == "" {
		srv.name = DefaultName
	}
	return srv
}
