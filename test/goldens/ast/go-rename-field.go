package server

import (
	"fmt"
	str "strings"
)

// Server serves requests.
type Server struct {
	label  string
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
	for i := range s.label {
		fmt.Println(i, upper)
	}
	s.count++
	return nil
}

func New(name string) *Server {
	srv := &Server{label: name}
	if name == "" {
		srv.label = DefaultName
	}
	return srv
}
