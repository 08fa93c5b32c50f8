import CPNG
