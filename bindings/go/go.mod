module kbench

go 1.19
