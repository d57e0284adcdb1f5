// One TCP flow over s -(link 1)- r -(link 2)- d in ns-3.44, the reference run of
// tests/test_ns3_bbr.py: the same path as burstlab's scenario in that test (point-to-
// point links, a drop-tail queue of `queue` packets at r towards d, no traffic-control
// queue discipline), a bulk sender with ns-3's TcpBbr or TcpCubic, and loss on the
// data packets arriving at d (TcpCubic without HyStart unless --hystart=1): the first transmissions of listed segments, or each data
// packet with probability `loss`. Writes one line per event to stdout:
//   send,<t_s>,<segment>,<retransmit 0|1>   a data segment leaves s
//   drop,<t_s>,<segment>                    the loss model drops it at d
//   cwnd,<t_s>,<segments>                   congestion window (bytes / segment size)
//   pacing,<t_s>,<bit/s>                    pacing rate
//   gain,<t_s>,<pacing gain>                TcpBbr's pacing gain (its mode)
//   minrtt,<t_s>,<s>                        TcpBbr's RTprop
//   rx,<t_s>,<bytes>                        bytes the sink has received, every 10 ms
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <set>
#include <sstream>

using namespace ns3;

namespace
{
uint32_t g_seg = 1000;
std::set<uint64_t> g_sent;
Ptr<PacketSink> g_sink;

// Drops data packets arriving at d: listed segments on their first transmission, or
// each one with probability `loss` (a substream of ns-3's RngRun).
class SegmentLoss : public ErrorModel
{
  public:
    std::set<uint64_t> list;
    std::set<uint64_t> done;
    double p = 0.0;
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();

  private:
    bool DoCorrupt(Ptr<Packet> pkt) override
    {
        Ptr<Packet> c = pkt->Copy();
        PppHeader ppp;
        Ipv4Header ip;
        TcpHeader tcp;
        c->RemoveHeader(ppp);
        c->RemoveHeader(ip);
        c->RemoveHeader(tcp);
        if (c->GetSize() == 0)
        {
            return false;
        }
        uint64_t seg = (tcp.GetSequenceNumber().GetValue() - 1) / g_seg;
        bool drop = false;
        if (list.count(seg) && !done.count(seg))
        {
            done.insert(seg);
            drop = true;
        }
        else if (p > 0.0 && u->GetValue() < p)
        {
            drop = true;
        }
        if (drop)
        {
            std::printf("drop,%.9f,%llu\n", Simulator::Now().GetSeconds(),
                        (unsigned long long)seg);
        }
        return drop;
    }

    void DoReset() override
    {
    }
};

void
OnTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    uint64_t seg = (h.GetSequenceNumber().GetValue() - 1) / g_seg;
    bool retx = !g_sent.insert(seg).second;
    std::printf("send,%.9f,%llu,%d\n", Simulator::Now().GetSeconds(),
                (unsigned long long)seg, retx ? 1 : 0);
}

void
OnCwnd(uint32_t, uint32_t v)
{
    std::printf("cwnd,%.9f,%.6f\n", Simulator::Now().GetSeconds(), double(v) / g_seg);
}

void
OnPacing(DataRate, DataRate v)
{
    std::printf("pacing,%.9f,%llu\n", Simulator::Now().GetSeconds(),
                (unsigned long long)v.GetBitRate());
}

void
OnGain(double, double v)
{
    std::printf("gain,%.9f,%.6f\n", Simulator::Now().GetSeconds(), v);
}

void
OnMinRtt(Time, Time v)
{
    std::printf("minrtt,%.9f,%.9f\n", Simulator::Now().GetSeconds(), v.GetSeconds());
}

void
Sample()
{
    std::printf("rx,%.9f,%llu\n", Simulator::Now().GetSeconds(),
                (unsigned long long)g_sink->GetTotalRx());
    Simulator::Schedule(MilliSeconds(10), &Sample);
}

void
Hook(bool bbr)
{
    auto base = "/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/";
    Config::ConnectWithoutContext(std::string(base) + "Tx", MakeCallback(&OnTx));
    Config::ConnectWithoutContext(std::string(base) + "CongestionWindow",
                                  MakeCallback(&OnCwnd));
    Config::ConnectWithoutContext(std::string(base) + "PacingRate", MakeCallback(&OnPacing));
    if (bbr)
    {
        Config::ConnectWithoutContext(std::string(base) + "CongestionOps/$ns3::TcpBbr/PacingGain",
                                      MakeCallback(&OnGain));
        Config::ConnectWithoutContext(std::string(base) + "CongestionOps/$ns3::TcpBbr/MinRtt",
                                      MakeCallback(&OnMinRtt));
    }
}
} // namespace

int
main(int argc, char* argv[])
{
    std::string cc = "bbr", rate1 = "100Mbps", delay1 = "10ms", rate2 = "10Mbps",
                delay2 = "20ms", drops;
    uint32_t queue = 100, initCwnd = 10, delAck = 1, wm = 1000, seed = 1;
    double duration = 10.0, loss = 0.0;
    bool hystart = false;
    CommandLine cmd;
    cmd.AddValue("cc", "bbr or cubic", cc);
    cmd.AddValue("rate1", "s-r rate", rate1);
    cmd.AddValue("delay1", "s-r delay", delay1);
    cmd.AddValue("rate2", "r-d rate", rate2);
    cmd.AddValue("delay2", "r-d delay", delay2);
    cmd.AddValue("queue", "r-d drop-tail queue, packets", queue);
    cmd.AddValue("seg", "segment payload, bytes", g_seg);
    cmd.AddValue("initCwnd", "initial cwnd, segments", initCwnd);
    cmd.AddValue("delAck", "segments per ACK", delAck);
    cmd.AddValue("wm", "receiver window, segments", wm);
    cmd.AddValue("duration", "seconds", duration);
    cmd.AddValue("loss", "drop probability of a data packet at d", loss);
    cmd.AddValue("drops", "comma-separated segments dropped on first transmission", drops);
    cmd.AddValue("seed", "RngRun", seed);
    cmd.AddValue("hystart", "TcpCubic's HyStart (off: RFC 9438's slow start)", hystart);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       StringValue(cc == "bbr" ? "ns3::TcpBbr" : "ns3::TcpCubic"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(g_seg));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initCwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAck));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1u << 30));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(wm * g_seg));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(cc == "bbr"));
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(hystart));

    NodeContainer n;
    n.Create(3);
    PointToPointHelper l1, l2;
    l1.SetDeviceAttribute("DataRate", StringValue(rate1));
    l1.SetChannelAttribute("Delay", StringValue(delay1));
    l1.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("100000p"));
    l2.SetDeviceAttribute("DataRate", StringValue(rate2));
    l2.SetChannelAttribute("Delay", StringValue(delay2));
    l2.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
                StringValue(std::to_string(queue) + "p"));
    NetDeviceContainer d1 = l1.Install(n.Get(0), n.Get(1));
    NetDeviceContainer d2 = l2.Install(n.Get(1), n.Get(2));
    InternetStackHelper stack;
    stack.Install(n);
    Ipv4AddressHelper a;
    a.SetBase("10.1.1.0", "255.255.255.0");
    a.Assign(d1);
    a.SetBase("10.1.2.0", "255.255.255.0");
    Ipv4InterfaceContainer i2 = a.Assign(d2);
    TrafficControlHelper tch;
    tch.Uninstall(d1);
    tch.Uninstall(d2);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    Ptr<SegmentLoss> em = CreateObject<SegmentLoss>();
    em->p = loss;
    std::stringstream ss(drops);
    std::string tok;
    while (std::getline(ss, tok, ','))
    {
        if (!tok.empty())
        {
            em->list.insert(std::stoull(tok));
        }
    }
    d2.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));

    BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(i2.GetAddress(1), 9));
    src.SetAttribute("MaxBytes", UintegerValue(0));
    src.SetAttribute("SendSize", UintegerValue(g_seg));
    ApplicationContainer sa = src.Install(n.Get(0));
    sa.Start(Seconds(0));
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
    ApplicationContainer ka = sink.Install(n.Get(2));
    ka.Start(Seconds(0));
    g_sink = DynamicCast<PacketSink>(ka.Get(0));
    Simulator::Schedule(NanoSeconds(1), &Hook, cc == "bbr");
    Simulator::Schedule(MilliSeconds(10), &Sample);
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    Simulator::Destroy();
    return 0;
}
